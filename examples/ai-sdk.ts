// examples/ai-sdk.ts — a Sandport sandbox as the AI SDK's `experimental_sandbox`: the tool a model calls runs
// there. The model is the AI SDK's own mock, scripted to call the tool once; pass a real model instead.
import { generateText, isStepCount, tool } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { createSandboxSession } from "sandport/ai-sdk";
import { LocalRuntime } from "sandport/local";
import { z } from "zod";

const shell = tool({
  description: "Run a shell command in the sandbox",
  inputSchema: z.object({ command: z.string() }),
  execute: async ({ command }, { experimental_sandbox: sandbox }) => sandbox?.run({ command }),
});

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};
const model = new MockLanguageModelV4({
  doGenerate: [
    {
      content: [
        { type: "tool-call", toolCallId: "1", toolName: "shell", input: '{"command":"echo $((6 * 7)); uname -s"}' },
      ],
      finishReason: { unified: "tool-calls", raw: undefined },
      usage,
      warnings: [],
    },
    {
      content: [{ type: "text", text: "done" }],
      finishReason: { unified: "stop", raw: undefined },
      usage,
      warnings: [],
    },
  ],
});

const runtime = new LocalRuntime();
const sandbox = await runtime.launch();
try {
  const result = await generateText({
    model,
    tools: { shell },
    stopWhen: isStepCount(2),
    prompt: "What is 6 times 7, and which kernel runs the sandbox?",
    experimental_sandbox: createSandboxSession({ runtime, handle: sandbox }),
  });
  console.log(result.steps[0]?.toolResults[0]?.output);
} finally {
  await runtime.destroy(sandbox);
}
