/** One step of a scripted model: a tool call, by tool name and input. */
export interface ScriptedToolCall {
  readonly toolName: string;
  /** The tool's input, sent as JSON. */
  readonly input: unknown;
}

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

/**
 * The generate results of a scripted model, for the AI SDK's own
 * `MockLanguageModelV4({ doGenerate: mockModelSteps(...) })` (from `ai/test`),
 * which frameworks built on the AI SDK (Mastra too) accept: one step per tool
 * call, then one answering `finalText`. Plain data, so the test kit needs no
 * `ai` installed.
 */
export function mockModelSteps(calls: readonly ScriptedToolCall[], finalText: string) {
  const steps = calls.map((call, index) => ({
    content: [
      {
        type: "tool-call" as const,
        toolCallId: `call-${index + 1}`,
        toolName: call.toolName,
        input: JSON.stringify(call.input),
      },
    ],
    finishReason: { unified: "tool-calls" as const, raw: undefined },
    usage,
    warnings: [],
  }));
  const answer = {
    content: [{ type: "text" as const, text: finalText }],
    finishReason: { unified: "stop" as const, raw: undefined },
    usage,
    warnings: [],
  };
  return [...steps, answer];
}
