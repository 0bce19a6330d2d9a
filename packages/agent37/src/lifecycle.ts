import type { OpOptions } from "@sandport/core";
import { absentAs, type CallBudget, destroyVerified, pause, whenAbsent } from "@sandport/core/adapter";
import type { Agent37Context } from "./context.js";
import { isNotFound } from "./errors.js";
import { PROVIDER } from "./handle.js";

/** Between two looks at an instance's status while it stops or starts. */
const STATUS_POLL_MS = 250;

/**
 * Destroys an instance and resolves once it is verified gone
 * (`destroyVerified`): `DELETE`, then `GET` until Agent37 answers 404. One
 * already absent counts as destroyed; one this runtime has not seen is
 * checked for our owner first (`FOREIGN_SANDBOX` otherwise).
 */
export function destroy(context: Agent37Context, handle: unknown, op?: OpOptions): Promise<void> {
  return destroyVerified(context, handle, op, {
    timeoutMs: context.options.timeouts.destroyMs,
    remove: (instanceId, budget) => deleteInstance(context, instanceId, budget),
  });
}

/** One `DELETE /v1/instances/{id}` of an instance known to be ours; resolves whether it was there. */
export async function deleteInstance(
  context: Agent37Context,
  instanceId: string,
  budget: CallBudget,
): Promise<boolean> {
  const deleted = context.client.deleteInstance(instanceId, budget).then(() => true, whenAbsent(isNotFound, false));
  return deleted.then(
    (was) => {
      context.dropUrl(instanceId);
      return was;
    },
    (error: unknown) => {
      throw context.mapError(error, { operation: "destroy", sandboxId: instanceId });
    },
  );
}

/** Stops an instance (`POST …/stop`; its disk persists) and resolves once it reports `stopped`. */
export function stop(context: Agent37Context, handle: unknown, op?: OpOptions): Promise<void> {
  return lifecycleCall(context, handle, op, "stop", "stopped");
}

/** Starts a stopped instance (`POST …/start`) and resolves once it reports `running`. */
export function start(context: Agent37Context, handle: unknown, op?: OpOptions): Promise<void> {
  return lifecycleCall(context, handle, op, "start", "running");
}

function lifecycleCall(
  context: Agent37Context,
  handle: unknown,
  op: OpOptions | undefined,
  action: "stop" | "start",
  target: string,
): Promise<void> {
  return context.onOwned(handle, op, action, context.options.timeouts.lifecycleMs, async (instanceId, call) => {
    const absent = absentAs(PROVIDER, isNotFound, instanceId, action);
    await context.client.lifecycle(instanceId, action, call).catch(absent);
    // The call answers `stopping`/`starting`; the instance is only usable (or at rest) once it says so.
    for (;;) {
      const instance = await context.client.getInstance(instanceId, call).catch(absent);
      context.note(instance);
      if (instance.status === target) return;
      await pause(STATUS_POLL_MS, call.signal);
    }
  });
}
