// bash-tool's real tools (bash, writeFile, readFile) over createBashToolSandbox on a real LocalRuntime,
// called by the AI SDK's own mock model through generateText.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type LocalTestRuntime, localTestRuntime } from "@sandport/testkit/fakes";
import { generateText, isStepCount } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { createBashTool } from "bash-tool";
import { createBashToolSandbox } from "./bash-tool-sandbox.js";

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};
const call = (toolCallId: string, toolName: string, input: unknown) => ({
  content: [{ type: "tool-call" as const, toolCallId, toolName, input: JSON.stringify(input) }],
  finishReason: { unified: "tool-calls" as const, raw: undefined },
  usage,
  warnings: [],
});

let local: LocalTestRuntime;
let handle: Awaited<ReturnType<LocalTestRuntime["runtime"]["launch"]>>;
before(async () => {
  local = await localTestRuntime("ai-sdk-bash-tool");
  handle = await local.runtime.launch({});
});
after(async () => {
  await local.runtime.destroy(handle);
  local.cleanup();
});

test("createBashTool's tools write, run and read in the sandbox when the model calls them", async () => {
  const sandbox = createBashToolSandbox({ runtime: local.runtime, handle });
  const { tools } = await createBashTool({
    sandbox,
    destination: local.runtime.workspaceRoot,
    files: { "src/data.txt": "3\n1\n2\n" },
  });
  const model = new MockLanguageModelV4({
    doGenerate: [
      call("c1", "writeFile", { path: "sort.sh", content: "sort -n src/data.txt > sorted.txt" }),
      call("c2", "bash", { command: "sh sort.sh && wc -l < sorted.txt" }),
      call("c3", "readFile", { path: "sorted.txt" }),
      {
        content: [{ type: "text", text: "sorted" }],
        finishReason: { unified: "stop", raw: undefined },
        usage,
        warnings: [],
      },
    ],
  });
  const result = await generateText({ model, tools, stopWhen: isStepCount(5), prompt: "sort the data" });
  const outputs = result.steps.flatMap((step) => step.toolResults.map((toolResult) => toolResult.output));
  assert.equal(result.text, "sorted");
  assert.match(JSON.stringify(outputs[1]), /"stdout":"3\\n"/);
  assert.match(JSON.stringify(outputs[2]), /1\\n2\\n3\\n/);
  assert.equal(new TextDecoder().decode(await local.runtime.readFile(handle, "sorted.txt")), "1\n2\n3\n");
});

test("executeCommand maps a timeout to 124; readFile of a missing file rejects NOT_FOUND", async () => {
  const sandbox = createBashToolSandbox({ runtime: local.runtime, handle, commandTimeoutMs: 200 });
  assert.equal((await sandbox.executeCommand("sleep 5")).exitCode, 124);
  await assert.rejects(sandbox.readFile("missing.txt"), { code: "NOT_FOUND" });
});
