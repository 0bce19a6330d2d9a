// The child process of ambient-env.wire.test.ts, started with every AWS source
// planted. It spies on the file system before the SDK is loaded, then either
// runs a whole workload through AgentCoreRuntime against the emulator
// (`workload`) or, to prove the traps are armed, sends one request through a
// client left to the SDK's own defaults (`bare`), and prints what was touched
// under the trap directory.
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";

interface Settings {
  /** `workload`: AgentCoreRuntime; `bare`: one request through a client left to the SDK's defaults. */
  readonly mode: "workload" | "bare";
  readonly trapRoot: string;
  readonly options: Record<string, unknown>;
}

const settings = JSON.parse(process.argv[2] ?? "{}") as Settings;
const touched: string[] = [];
const record = (path: unknown) => {
  const text =
    path instanceof URL
      ? path.pathname
      : typeof path === "string"
        ? path
        : Buffer.isBuffer(path)
          ? path.toString()
          : "";
  if (text.startsWith(settings.trapRoot)) touched.push(text);
};
// Every way the SDK's loaders reach a file: wrapped before the SDK is loaded.
const spy = (target: Record<string, unknown>, names: readonly string[]) => {
  for (const name of names) {
    const original = target[name];
    if (typeof original !== "function") continue;
    target[name] = function (this: unknown, path: unknown, ...rest: unknown[]) {
      record(path);
      return (original as (...args: unknown[]) => unknown).call(this, path, ...rest);
    };
  }
};
const syncNames = ["readFileSync", "openSync", "statSync", "lstatSync", "existsSync", "accessSync", "readdirSync"];
const callbackNames = ["readFile", "open", "stat", "lstat", "access", "readdir", "createReadStream"];
spy(fs as unknown as Record<string, unknown>, [...syncNames, ...callbackNames]);
spy(fs.promises as unknown as Record<string, unknown>, ["readFile", "open", "stat", "lstat", "access", "readdir"]);
syncBuiltinESMExports();

if (settings.mode === "workload") {
  const { AgentCoreRuntime } = await import("../src/agentcore-runtime.js");
  const runtime = new AgentCoreRuntime(settings.options as never);
  const handle = await runtime.launch({ labels: { probe: "ambient" }, env: { FROM_LAUNCH: "1" } });
  await runtime.writeFiles(handle, [{ path: "in/a.txt", content: "a" }]);
  const ran = await runtime.exec(handle, { shell: 'cat in/a.txt; echo "$FROM_LAUNCH"' });
  const read = new TextDecoder().decode(await runtime.readFile(handle, "in/a.txt"));
  const found = await runtime.findByLabels({ probe: "ambient" });
  const reopened = new AgentCoreRuntime(settings.options as never);
  const again = await reopened.getById(handle.id);
  await reopened.destroy(handle);
  const workload = { stdout: ran.stdout, read, found: found.length, reattached: again?.id === handle.id };
  process.stdout.write(`${JSON.stringify({ workload, touched })}\n`);
} else {
  // The traps are armed: a client left to the SDK reads the config files, runs
  // credential_process and goes where the environment points. (FIPS and
  // dual-stack are turned off here only because, with a custom endpoint, they
  // make the SDK refuse before it would send anything.)
  const sdk = await import("@aws-sdk/client-bedrock-agentcore");
  const bare = new sdk.BedrockAgentCoreClient({ maxAttempts: 1, useFipsEndpoint: false, useDualstackEndpoint: false });
  const outcome = await bare
    .send(new sdk.ListCodeInterpreterSessionsCommand({ codeInterpreterIdentifier: "aws.codeinterpreter.v1" }))
    .then(
      () => "answered",
      (error: unknown) => String((error as Error).name),
    );
  bare.destroy();
  process.stdout.write(`${JSON.stringify({ outcome, touched })}\n`);
}
