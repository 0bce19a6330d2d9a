// The real AI SDK (`generateText` and `ToolLoopAgent`) with its own mock language model, calling a
// tool that writes, runs and reads through `experimental_sandbox` on a real LocalRuntime.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type LocalTestSandbox, localTestSandbox, mockModelSteps } from "@sandport/testkit/fakes";
import { generateText, isStepCount, ToolLoopAgent, tool } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { z } from "zod";
import { createSandboxSession } from "./session.js";

/** A model that calls `workspace` once with `input`, then answers with text. */
function scriptedModel(input: Record<string, string>): MockLanguageModelV4 {
  return new MockLanguageModelV4({ doGenerate: mockModelSteps([{ toolName: "workspace", input }], "done") });
}

/** The tool a model calls: writes a script, runs it, reads what it wrote, all through the sandbox it is given. */
const workspace = tool({
  description: "Write a file, run a command, read a file, in the sandbox",
  inputSchema: z.object({ path: z.string(), content: z.string(), command: z.string(), read: z.string() }),
  execute: async ({ path, content, command, read }, { experimental_sandbox: sandbox }) => {
    if (!sandbox) throw new Error("no sandbox was passed to the tool");
    await sandbox.writeTextFile({ path, content });
    const run = await sandbox.run({ command });
    return { exitCode: run.exitCode, stdout: run.stdout, read: await sandbox.readTextFile({ path: read }) };
  },
});

describe("the AI SDK drives a Sandport sandbox through experimental_sandbox", () => {
  let local: LocalTestSandbox;
  before(async () => {
    local = await localTestSandbox("ai-sdk-generate");
  });
  after(() => local.cleanup());

  test("generateText: the model's tool call writes, runs and reads in the sandbox", async () => {
    const result = await generateText({
      model: scriptedModel({
        path: "job/count.sh",
        content: "echo 3 > result.txt; cat result.txt",
        command: "cd job && sh count.sh",
        read: "job/result.txt",
      }),
      tools: { workspace },
      stopWhen: isStepCount(3),
      prompt: "count",
      experimental_sandbox: createSandboxSession({ runtime: local.runtime, handle: local.handle }),
    });
    assert.equal(result.text, "done");
    const output = result.steps[0]?.toolResults[0]?.output;
    assert.deepEqual(output, { exitCode: 0, stdout: "3\n", read: "3\n" });
    assert.equal(new TextDecoder().decode(await local.runtime.readFile(local.handle, "job/result.txt")), "3\n");
  });

  test("ToolLoopAgent: the same sandbox passed per call, with a base directory", async () => {
    await local.runtime.writeFiles(local.handle, [{ path: "agent/.keep", content: "" }]);
    const agent = new ToolLoopAgent({
      model: scriptedModel({ path: "hello.txt", content: "hi", command: "wc -c < hello.txt", read: "hello.txt" }),
      tools: { workspace },
      stopWhen: isStepCount(3),
    });
    const result = await agent.generate({
      prompt: "say hi",
      experimental_sandbox: createSandboxSession({
        runtime: local.runtime,
        handle: local.handle,
        workingDirectory: "agent",
      }),
    });
    assert.deepEqual(result.steps[0]?.toolResults[0]?.output, { exitCode: 0, stdout: "2\n", read: "hi" });
    assert.equal(new TextDecoder().decode(await local.runtime.readFile(local.handle, "agent/hello.txt")), "hi");
  });
});
