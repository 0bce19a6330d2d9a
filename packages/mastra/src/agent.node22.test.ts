// A real Mastra Agent, driven by the AI SDK's mock language model, calls Mastra's own workspace tools
// (write a file, run a command, read a file) on a Workspace whose sandbox and filesystem are this
// bridge over one real LocalRuntime sandbox.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Agent } from "@mastra/core/agent";
import { Workspace } from "@mastra/core/workspace";
import { type LocalTestRuntime, localTestRuntime, mockModelSteps } from "@sandport/testkit/fakes";
import { MockLanguageModelV4 } from "ai/test";
import { createMastraFilesystem } from "./filesystem.js";
import { createMastraSandbox } from "./sandbox.js";

let local: LocalTestRuntime;
before(async () => {
  local = await localTestRuntime("mastra-agent");
});
after(() => local.cleanup());

test("Mastra's workspace tools write, run and read through the bridge when the agent's model calls them", async () => {
  const sandbox = await createMastraSandbox({ runtime: local.runtime });
  const filesystem = createMastraFilesystem({ runtime: local.runtime, handle: () => sandbox.sandboxHandle() });
  const workspace = new Workspace({ sandbox, filesystem });
  const steps = mockModelSteps(
    [
      { toolName: "mastra_workspace_write_file", input: { path: "job/sum.sh", content: "echo $((2 + 3)) > sum.txt" } },
      { toolName: "mastra_workspace_execute_command", input: { command: "sh sum.sh && cat sum.txt", cwd: "job" } },
      { toolName: "mastra_workspace_read_file", input: { path: "job/sum.txt" } },
    ],
    "the sum is 5",
  );
  const model = new MockLanguageModelV4({ doGenerate: steps });
  // The mock implements @ai-sdk/provider's current LanguageModelV4; Mastra's types name an older copy of it.
  const agent = new Agent({
    id: "coder",
    name: "coder",
    instructions: "Use the workspace.",
    model: model as never,
    workspace,
  });
  try {
    const result = await agent.generate("add two and three", { maxSteps: 5 });
    assert.equal(result.text, "the sum is 5");
    const outputs = result.steps.flatMap((step) => step.toolResults.map((toolResult) => JSON.stringify(toolResult)));
    assert.equal(outputs.length, 3, outputs.join("\n"));
    assert.match(outputs[0] as string, /"result":"Wrote 25 bytes to job\/sum.sh"/);
    assert.match(outputs[1] as string, /"result":"5\\n"/);
    assert.match(outputs[2] as string, /1→5/);
    const handle = await sandbox.sandboxHandle();
    assert.equal(new TextDecoder().decode(await local.runtime.readFile(handle, "job/sum.txt")), "5\n");
  } finally {
    await sandbox.destroy?.();
  }
});
