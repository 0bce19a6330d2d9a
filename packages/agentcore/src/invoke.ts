import { type CallBudget, deadlineSignal } from "@sandport/core/adapter";
import type { AgentCoreContext } from "./context.js";
import type { InvokeInput, ToolResult } from "./internal/sdk-types.js";

/** A tool call: the tool and its arguments. */
export type ToolCall = Pick<InvokeInput, "name" | "arguments">;

/**
 * One `InvokeCodeInterpreter` on a session, its event stream drained, the
 * last `result` answered (the SDK throws an exception frame while it is
 * iterated). `repeatable` says whether the call may be sent again by the
 * SDK's retries: only for reads; a command, a write or a removal goes through
 * the client that makes one attempt, because Invoke has no idempotency token
 * and a 5xx may come after the tool ran. The request carries a signal that
 * fires at the budget's deadline (and with its signal).
 */
export async function invokeTool(
  context: AgentCoreContext,
  sessionId: string,
  call: ToolCall,
  budget: CallBudget,
  repeatable: boolean,
): Promise<ToolResult> {
  const sdk = await context.sdk();
  const clients = await context.clients();
  const client = repeatable ? clients.safe : clients.once;
  const command = new sdk.InvokeCodeInterpreterCommand({
    codeInterpreterIdentifier: context.options.codeInterpreterId,
    sessionId,
    ...call,
  });
  const output = await client.send(command, { abortSignal: signalOf(budget) });
  let last: ToolResult | undefined;
  for await (const event of output.stream ?? []) {
    if (event.result) last = event.result;
  }
  if (last === undefined) throw new Error(`AgentCore answered ${call.name} with no result event`);
  return last;
}

/** A signal that fires at the budget's deadline, or with the budget's own signal. */
export function signalOf(budget: CallBudget): AbortSignal {
  return deadlineSignal(Math.max(1, budget.remainingMs()), budget.signal);
}

/** The text of a result's text blocks, joined: what a failed tool says. */
export function resultText(result: ToolResult): string {
  return (result.content ?? [])
    .map((block) => block.text ?? "")
    .join("\n")
    .trim();
}
