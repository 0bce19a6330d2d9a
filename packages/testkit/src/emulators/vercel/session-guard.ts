/** Looking up the session a `/v2/sandboxes/sessions/:sessionId/...` request names. */

import type { Exchange } from "../harness/exchange.js";
import type { VercelContext, VercelSandbox, VercelSession } from "./context.js";
import { notFound, sandboxStopped } from "./errors.js";

/** The sandbox and session a request addresses. */
export interface SessionTarget {
  readonly sandbox: VercelSandbox;
  readonly session: VercelSession;
}

/**
 * Runs `handler` with the request's session. Answers 404 for an unknown
 * session (or one of a deleted sandbox) and, unless `stoppedToo`, 410
 * `sandbox_stopped` for a session that has ended: the SDK then resumes the
 * sandbox and repeats the call on the new session.
 */
export async function withSession(
  exchange: Exchange,
  context: VercelContext,
  handler: (target: SessionTarget) => Promise<void> | void,
  options: { readonly stoppedToo?: boolean } = {},
): Promise<void> {
  const id = exchange.params.sessionId ?? "";
  const target = context.sandboxes.findSession(id);
  if (!target) {
    notFound(exchange, `Session not found: ${id}`);
    return;
  }
  if (target.session.status !== "running" && !options.stoppedToo) {
    sandboxStopped(exchange);
    return;
  }
  await handler(target);
}
