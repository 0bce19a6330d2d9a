// bash-tool's real tools (bash, writeFile, readFile) over createBashToolSandbox on a real LocalRuntime,
// called by the AI SDK's own mock model through generateText.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type LocalTestSandbox, localTestSandbox, mockModelSteps, namespacesSkipReason } from "@sandport/testkit/fakes";
import { generateText, isStepCount } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { createBashTool } from "bash-tool";
import { createBashToolSandbox } from "./bash-tool-sandbox.js";

/** Why the tests that assert what only a namespaced sandbox shows (its `/workspace`, its loopback) skip here, if they do. */
const namespacesOnly = await namespacesSkipReason();

let local: LocalTestSandbox;
before(async () => {
  local = await localTestSandbox("ai-sdk-bash-tool");
});
after(() => local.cleanup());

test("createBashTool's tools write, run and read in the sandbox when the model calls them", async () => {
  const sandbox = createBashToolSandbox({ runtime: local.runtime, handle: local.handle });
  const { tools } = await createBashTool({
    sandbox,
    destination: local.runtime.workspaceRoot,
    files: { "src/data.txt": "3\n1\n2\n" },
  });
  const steps = mockModelSteps(
    [
      { toolName: "writeFile", input: { path: "sort.sh", content: "sort -n src/data.txt > sorted.txt" } },
      { toolName: "bash", input: { command: "sh sort.sh && wc -l < sorted.txt" } },
      { toolName: "readFile", input: { path: "sorted.txt" } },
    ],
    "sorted",
  );
  const model = new MockLanguageModelV4({ doGenerate: steps });
  const result = await generateText({ model, tools, stopWhen: isStepCount(5), prompt: "sort the data" });
  const outputs = result.steps.flatMap((step) => step.toolResults.map((toolResult) => toolResult.output));
  assert.equal(result.text, "sorted");
  assert.match(JSON.stringify(outputs[1]), /"stdout":"3\\n"/);
  assert.match(JSON.stringify(outputs[2]), /1\\n2\\n3\\n/);
  assert.equal(new TextDecoder().decode(await local.runtime.readFile(local.handle, "sorted.txt")), "1\n2\n3\n");
});

test("executeCommand maps a timeout to 124; readFile of a missing file rejects NOT_FOUND", async () => {
  const sandbox = createBashToolSandbox({ runtime: local.runtime, handle: local.handle, commandTimeoutMs: 200 });
  assert.equal((await sandbox.executeCommand("sleep 5")).exitCode, 124);
  await assert.rejects(sandbox.readFile("missing.txt"), { code: "NOT_FOUND" });
});

test("a command bash-tool starts with a cd into /tmp runs there, and one into a missing directory is NOT_FOUND", async () => {
  const sandbox = createBashToolSandbox({ runtime: local.runtime, handle: local.handle });
  // The `cd "<dir>" && ` bash-tool puts before each command becomes the request's working directory.
  assert.equal((await sandbox.executeCommand('cd "/tmp" && pwd')).stdout, "/tmp\n");
  await assert.rejects(sandbox.executeCommand('cd "/tmp/no-such-dir" && echo ran'), (error: unknown) => {
    assert.equal((error as { code?: string }).code, "NOT_FOUND");
    assert.equal((error as { details?: { cwd?: string } }).details?.cwd, "/tmp/no-such-dir");
    return true;
  });
});

test("without a destination, bash-tool's default /workspace is the runtime's workspace, wherever its root is", async () => {
  // A LocalRuntime like the testkit's (its class, as bridge tests import no adapter), with E2B's workspace
  // root: bash-tool's default destination is not in it.
  const LocalRuntime = local.runtime.constructor as new (options: {
    root: string;
    isolation: typeof local.isolation;
    workspaceRoot: string;
  }) => typeof local.runtime;
  const root = mkdtempSync(join(tmpdir(), "sandport-ai-sdk-bash-root-"));
  const runtime = new LocalRuntime({ root, isolation: local.isolation, workspaceRoot: "/home/user/workspace" });
  const handle = await runtime.launch({});
  try {
    const sandbox = createBashToolSandbox({ runtime, handle });
    const { tools } = await createBashTool({ sandbox, files: { "src/data.txt": "3\n1\n2\n" } });
    const steps = mockModelSteps(
      [
        { toolName: "writeFile", input: { path: "sort.sh", content: "sort -n src/data.txt > sorted.txt" } },
        { toolName: "bash", input: { command: "sh sort.sh && wc -l < sorted.txt" } },
        { toolName: "readFile", input: { path: "sorted.txt" } },
      ],
      "sorted",
    );
    const model = new MockLanguageModelV4({ doGenerate: steps });
    const result = await generateText({ model, tools, stopWhen: isStepCount(5), prompt: "sort the data" });
    const outputs = result.steps.flatMap((step) => step.toolResults.map((toolResult) => toolResult.output));
    assert.match(JSON.stringify(outputs[1]), /"stdout":"3\\n"/);
    assert.match(JSON.stringify(outputs[2]), /1\\n2\\n3\\n/);
    assert.equal(
      new TextDecoder().decode(await runtime.readFile(handle, "/home/user/workspace/sorted.txt")),
      "1\n2\n3\n",
    );
    if (namespacesOnly === undefined) {
      assert.equal((await sandbox.executeCommand('cd "/workspace/src" && pwd')).stdout, "/home/user/workspace/src\n");
    }
    // Outside both, a path is still refused.
    await assert.rejects(sandbox.readFile("/workspace/../etc/passwd"), { code: "INVALID_REQUEST" });
  } finally {
    await runtime.destroy(handle);
    rmSync(root, { recursive: true, force: true });
  }
});
