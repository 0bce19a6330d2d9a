import { type CallBudget, deadlineSignal } from "@sandport/core/adapter";
import { CALL_ENDED_CODE } from "./errors.js";

/** The header that marks a stored answer of a backgrounded request: the SDK delivers it instead of polling again. */
const BACKGROUND_ID_HEADER = "x-freestyle-background-request-id";

/**
 * The `fetch` of the SDK client that makes one call: every request it sends
 * carries the call's signal and ends at the call's deadline (the SDK has no
 * timeout or cancellation of its own on most calls).
 *
 * Once the call has ended, it sends nothing and answers `504
 * SANDPORT_CALL_ENDED` itself, carrying a background request id so the SDK
 * takes it as a final answer. That is what stops the SDK's polling of a
 * backgrounded request, which would otherwise retry a failing poll every 2 s
 * for five minutes after the caller has gone; and a 504 says what is true of
 * a request cut off this way: its outcome is unknown.
 */
export function callFetch(transport: typeof fetch, timing: CallBudget): typeof fetch {
  return (input, init) => {
    const remaining = timing.remainingMs();
    if (timing.signal?.aborted || remaining <= 0) return Promise.resolve(callEnded());
    return transport(input, { ...init, signal: deadlineSignal(remaining, timing.signal, init?.signal ?? undefined) });
  };
}

function callEnded(): Response {
  const body = {
    code: CALL_ENDED_CODE,
    message: "the Sandport call that made this request has ended; nothing was sent",
  };
  const headers = { "content-type": "application/json", [BACKGROUND_ID_HEADER]: CALL_ENDED_CODE };
  return new Response(JSON.stringify(body), { status: 504, headers });
}
