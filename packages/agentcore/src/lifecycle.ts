import type { OpOptions } from "@sandport/core";
import { type CallBudget, destroyVerified, whenAbsent } from "@sandport/core/adapter";
import type { AgentCoreContext } from "./context.js";
import { isNotFound } from "./errors.js";
import { signalOf } from "./invoke.js";

/**
 * Destroys a session and resolves once it is verified gone
 * (`destroyVerified`): `StopCodeInterpreterSession`, then Get until it
 * answers `TERMINATED` (or not found). A session that is already terminated
 * or absent counts as destroyed; one this runtime has not seen is checked for
 * our marks first (`FOREIGN_SANDBOX` otherwise). When termination cannot be
 * shown before the deadline, rejects `DESTROY_UNVERIFIED` (retryable).
 */
export function destroy(context: AgentCoreContext, handle: unknown, op?: OpOptions): Promise<void> {
  return destroyVerified(context, handle, op, {
    timeoutMs: context.options.timeouts.destroyMs,
    remove: (sessionId, budget) => stopSession(context, sessionId, budget),
  });
}

/**
 * One `StopCodeInterpreterSession` of a session known to be ours (retried by
 * the SDK where safe: stopping is idempotent); resolves whether it was there.
 * Shared with the cleanup of abandoned launches.
 */
export async function stopSession(context: AgentCoreContext, sessionId: string, budget: CallBudget): Promise<boolean> {
  const sdk = await context.sdk();
  const { safe } = await context.clients();
  const command = new sdk.StopCodeInterpreterSessionCommand({
    codeInterpreterIdentifier: context.options.codeInterpreterId,
    sessionId,
  });
  const stopped = safe.send(command, { abortSignal: signalOf(budget) }).then(() => true, whenAbsent(isNotFound, false));
  return stopped.catch((error: unknown) => {
    throw context.mapError(error, { operation: "destroy", sandboxId: sessionId });
  });
}
