import { type OpOptions, SandportError } from "@sandport/core";
import {
  type CallBudget,
  createCallBudget,
  destroyVerified,
  onOwnedInfo,
  sandboxNotFound,
  whenAbsent,
} from "@sandport/core/adapter";
import { type DaytonaContext, seconds } from "./context.js";
import { isNotFound, mapDaytonaError, statusOf } from "./errors.js";
import { PROVIDER } from "./handle.js";
import type { DaytonaSandbox, DaytonaSandboxRecord } from "./internal/sdk-types.js";
import { repeatable, runScript } from "./run-script.js";

/**
 * Retries of a delete: it is idempotent, and Daytona refuses one (400/409)
 * while a state change (a start, a stop) is still settling.
 */
const DELETE_RETRY = { maxAttempts: 6, initialDelayMs: 250, maxDelayMs: 2_000 } as const;
/** What the readiness probe runs, and must print. */
const PROBE = "echo sandport-ready";
const PROBE_OUTPUT = "sandport-ready\n";
/** Probe failures that say nothing about the sandbox's health (the caller's, or Daytona refusing to talk): they propagate as they are. */
const NOT_ABOUT_HEALTH = new Set(["AUTH", "RATE_LIMITED", "ABORTED", "DEADLINE_EXCEEDED", "FOREIGN_SANDBOX"]);
/** States of a sandbox that cannot run anything. */
const BROKEN = new Set(["error", "build_failed"]);

/**
 * Destroys a sandbox and resolves once it is verified gone (`destroyVerified`):
 * `DELETE`, then `GET` until Daytona reports it not found or destroyed.
 * Daytona's `DELETE` answers while the sandbox is still `destroying`, so the
 * first `GET` waits as long as this runtime's deletes have taken to show
 * (`deletePace`, 250 ms before the first): one `GET` normally proves it gone. A
 * sandbox that is already absent counts as destroyed; one this runtime has
 * not seen is checked for our ownership label first (`FOREIGN_SANDBOX`
 * otherwise). When absence cannot be shown before the deadline, rejects
 * `DESTROY_UNVERIFIED` (retryable).
 */
export function destroy(context: DaytonaContext, handle: unknown, op?: OpOptions): Promise<void> {
  return destroyVerified(context, handle, op, {
    timeoutMs: context.options.timeouts.destroyMs,
    remove: (sandboxId, budget) => deleteSandbox(context, sandboxId, budget),
    pace: context.deletePace,
  });
}

/**
 * One `DELETE /api/sandbox/{id}` of a sandbox known to be ours (retried while
 * Daytona refuses it for a state change in progress, or on 429/5xx); resolves
 * whether it was there. Shared with the cleanup of abandoned launches and `recreate`.
 */
export async function deleteSandbox(context: DaytonaContext, sandboxId: string, budget: CallBudget): Promise<boolean> {
  const api = await context.api();
  const request = () => api.deleteSandbox(sandboxId, undefined, context.requestOptions(budget));
  const retryAlso = (error: SandportError) => statusOf(error) === 400 || statusOf(error) === 409;
  const found = await repeatable(budget, { operation: "destroy", sandboxId }, request, {
    policy: DELETE_RETRY,
    retryAlso,
  }).then(() => true, whenAbsent(isNotFound, false));
  context.forget(sandboxId, { keepOwnership: found });
  return found;
}

/**
 * Stops a sandbox and waits until it is stopped (its processes end; its
 * files stay); `start` brings it back. Already stopped is fine. With
 * `autoDeleteMinutes: 0`, Daytona deletes a sandbox once it stops.
 */
export function stop(context: DaytonaContext, handle: unknown, op?: OpOptions): Promise<void> {
  return context.onInstance(handle, op, "stop", context.options.timeouts.lifecycleMs, async (sandbox, call, id) => {
    try {
      await sandbox.stop(seconds(call.remainingMs()));
    } catch (error) {
      const mapped = mapDaytonaError(error, { operation: "stop", sandboxId: id });
      if (mapped.code !== "INVALID_REQUEST") throw mapped;
      // Refused: it may be stopped already. Anything else it is, is the refusal's reason.
      const current = await context.describe(id, "stop", call);
      if (!current) throw sandboxNotFound(PROVIDER, id, "stop", error);
      if (current.state !== "stopped" && current.state !== "archived") throw mapped;
    } finally {
      // The instance's toolbox is gone with the stop; the next call looks the sandbox up again.
      context.forget(id, { keepOwnership: true });
    }
  });
}

/**
 * Starts a sandbox and proves it can run commands; Daytona's reported state
 * is not trusted. Re-reads the sandbox (an error there propagates as it is;
 * absent is `NOT_FOUND`, not ours `FOREIGN_SANDBOX`), starts it unless it is
 * started, then runs a readiness probe (one real command, bounded by
 * `readinessProbeMs`). The sandbox never changes identity: one that fails to
 * start or fails the probe rejects `PROVIDER_UNAVAILABLE`, naming
 * `DaytonaRuntime.recreate`, which replaces it explicitly.
 */
export function start(context: DaytonaContext, handle: unknown, op?: OpOptions): Promise<void> {
  const { lifecycleMs } = context.options.timeouts;
  return onOwnedInfo(context, handle, op, "start", lifecycleMs, async (record, call, sandboxId) => {
    const unhealthy = await startAndProbe(context, record, call);
    if (unhealthy === undefined) return;
    throw new SandportError({
      code: "PROVIDER_UNAVAILABLE",
      provider: PROVIDER,
      retryable: false,
      cause: unhealthy,
      message: `daytona sandbox ${sandboxId} did not become ready after start: ${unhealthy.message}; DaytonaRuntime.recreate(handle) replaces it with a new sandbox launched the same way (a new id, an empty filesystem)`,
      details: { sandboxId, hint: "recreate" },
    });
  });
}

/**
 * Starts the sandbox unless it is started and runs the probe; resolves
 * `undefined` when it passed, else the failure that makes it unusable: a
 * sandbox in state `error` (or ending there while it starts), or a failed
 * probe. Failures that say nothing about the sandbox's health (the control
 * plane refusing or unreachable, the caller's abort or deadline) are thrown.
 */
export async function startAndProbe(
  context: DaytonaContext,
  record: DaytonaSandboxRecord,
  call: CallBudget & { readonly signal: AbortSignal },
): Promise<SandportError | undefined> {
  const sandboxId = record.id;
  const site = { operation: "start", sandboxId };
  if (record.state !== undefined && BROKEN.has(record.state)) {
    const reason = record.errorReason ?? "no reason given";
    return failedProbe(sandboxId, `Daytona reports it in state ${record.state} (${reason})`);
  }
  context.forget(sandboxId, { keepOwnership: true });
  let sandbox: DaytonaSandbox;
  try {
    sandbox = await context.instance(sandboxId, "start", call);
    if (record.state === "stopping") await sandbox.waitUntilStopped(seconds(call.remainingMs()));
    if (sandbox.state !== "started") await sandbox.start(seconds(call.remainingMs()));
  } catch (error) {
    const mapped = mapDaytonaError(error, site);
    // The SDK's wait ended with the sandbox in state error: the one start failure that is about the sandbox.
    if (mapped.code === "PROVIDER_UNAVAILABLE" && !mapped.retryable && mapped.details.status === undefined) {
      context.forget(sandboxId, { keepOwnership: true });
      return mapped;
    }
    throw mapped;
  }
  try {
    await probe(context, sandbox, call);
    return undefined;
  } catch (error) {
    const mapped = mapDaytonaError(error, site);
    if (NOT_ABOUT_HEALTH.has(mapped.code)) throw mapped;
    context.forget(sandboxId, { keepOwnership: true });
    return mapped;
  }
}

/**
 * The readiness probe: one command that must print its line and exit 0
 * within `readinessProbeMs`. Any other outcome is a failure (`PROVIDER_UNAVAILABLE`).
 */
export async function probe(
  context: DaytonaContext,
  sandbox: DaytonaSandbox,
  call: CallBudget & { readonly signal: AbortSignal },
): Promise<void> {
  const limit = Math.min(context.options.readinessProbeMs, call.remainingMs());
  const site = { operation: "readiness probe", sandboxId: sandbox.id };
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(failedProbe(sandbox.id, `no answer within ${limit} ms`)), limit);
  });
  try {
    const timing = { ...createCallBudget(limit), signal: call.signal };
    const result = await Promise.race([runScript(sandbox, PROBE, undefined, timing, site), expired]);
    if (result.exitCode !== 0 || result.output !== PROBE_OUTPUT) {
      throw failedProbe(sandbox.id, `exit ${result.exitCode}, output ${JSON.stringify(result.output.slice(0, 200))}`);
    }
  } catch (error) {
    const mapped = mapDaytonaError(error, site);
    // The probe's own deadline passing says the sandbox is not ready; the caller's says nothing about it.
    if (mapped.code === "DEADLINE_EXCEEDED" && !call.signal.aborted)
      throw failedProbe(sandbox.id, mapped.message, error);
    throw mapped;
  } finally {
    clearTimeout(timer);
  }
}

function failedProbe(sandboxId: string, why: string, cause?: unknown): SandportError {
  return new SandportError({
    code: "PROVIDER_UNAVAILABLE",
    provider: PROVIDER,
    retryable: false,
    ...(cause === undefined ? {} : { cause }),
    message: `daytona sandbox ${sandboxId} failed its readiness probe: ${why}`,
    details: { sandboxId, probe: PROBE },
  });
}
