import { type OpOptions, SandportError } from "@sandport/core";
import { foreignSandbox, isOwnedBy, type OperationCall, sandboxNotFound } from "@sandport/core/adapter";
import { budget, type DaytonaContext, seconds } from "./context.js";
import { mapDaytonaError } from "./errors.js";
import { PROVIDER, validSandboxId } from "./handle.js";
import type { DaytonaSandbox, DaytonaSandboxRecord } from "./internal/sdk-types.js";
import { createRetrying } from "./launch.js";
import { replacementBody } from "./launch-plan.js";
import { deleteSandbox } from "./lifecycle.js";
import { repeatable, runScript } from "./run-script.js";

/** What the readiness probe runs, and must print. */
const PROBE = "echo sandport-ready";
const PROBE_OUTPUT = "sandport-ready\n";
/** Probe failures that say nothing about the sandbox's health (the caller's, or Daytona refusing to talk): they propagate as they are. */
const NOT_ABOUT_HEALTH = new Set(["AUTH", "RATE_LIMITED", "ABORTED", "DEADLINE_EXCEEDED", "FOREIGN_SANDBOX"]);
/** States of a sandbox that cannot run anything. */
const BROKEN = new Set(["error", "build_failed"]);

/**
 * Starts a sandbox and proves it can run commands; Daytona's reported state
 * is not trusted. Re-reads the sandbox (an error there, such as `AUTH`,
 * `RATE_LIMITED` or a dropped connection, propagates as it is and nothing is
 * replaced; absent is `NOT_FOUND`, not ours `FOREIGN_SANDBOX`), starts it
 * unless it is started, then runs a readiness probe (one real command,
 * bounded by `readinessProbeMs`). A healthy sandbox keeps its id.
 *
 * A sandbox that fails to start or fails the probe is, by default
 * (`recreateOnFailedStart`), replaced: a new sandbox launched the same way
 * (snapshot or build, labels, env, lifecycle intervals, volumes, network) is
 * started and proven with the same probe, and only then is the unusable one
 * deleted. The caller's handle is updated in place with the new id: persist
 * it. The replacement has none of the old sandbox's files. With
 * `recreateOnFailedStart: false` a failed start or probe rejects
 * `PROVIDER_UNAVAILABLE` and nothing is created.
 */
export function start(context: DaytonaContext, handle: unknown, op?: OpOptions): Promise<void> {
  return context.onHandle(handle, op, "start", context.options.timeouts.lifecycleMs, async (sandboxId, call) => {
    const record = await context.ownedRecord(sandboxId, "start", call);
    if (!record) throw sandboxNotFound(PROVIDER, sandboxId, "start");
    const unhealthy = await startAndProbe(context, sandboxId, record, call);
    if (unhealthy === undefined) return;
    if (!context.options.recreateOnFailedStart) throw notReady(sandboxId, unhealthy);
    assertWritable(handle, sandboxId, unhealthy);
    const replacement = await replace(context, record, call);
    (handle as { id: string }).id = replacement;
    await retire(context, sandboxId, call);
  });
}

/**
 * Starts the sandbox unless it is started and runs the probe; resolves
 * `undefined` when it passed, else the failure that makes it unusable: a
 * sandbox in state `error` (or ending there while it starts), or a failed
 * probe. Failures that say nothing about the sandbox's health (the control
 * plane refusing or unreachable, the caller's abort or deadline) are thrown.
 */
async function startAndProbe(
  context: DaytonaContext,
  sandboxId: string,
  record: DaytonaSandboxRecord,
  call: OperationCall,
): Promise<SandportError | undefined> {
  const site = { operation: "start", sandboxId };
  if (record.state !== undefined && BROKEN.has(record.state)) {
    return failedProbe(
      sandboxId,
      `Daytona reports it in state ${record.state} (${record.errorReason ?? "no reason given"})`,
    );
  }
  context.forget(sandboxId, { keepOwnership: true });
  let sandbox: DaytonaSandbox;
  try {
    sandbox = await context.sandbox(sandboxId, "start", call);
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
async function probe(context: DaytonaContext, sandbox: DaytonaSandbox, call: OperationCall): Promise<void> {
  const limit = Math.min(context.options.readinessProbeMs, call.remainingMs());
  const timing = { ...budget(limit), signal: call.signal };
  const site = { operation: "readiness probe", sandboxId: sandbox.id };
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(failedProbe(sandbox.id, `no answer within ${limit} ms`)), limit);
  });
  try {
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

/**
 * Launches a replacement for `record` (through the low-level API: the same
 * create body), waits until it is started, creates its workspace and proves
 * it with the probe; resolves its id. A replacement that fails is deleted,
 * and the failure propagates (the old sandbox is kept).
 */
async function replace(context: DaytonaContext, record: DaytonaSandboxRecord, call: OperationCall): Promise<string> {
  const api = await context.api();
  const body = replacementBody(context.options, record);
  const { data: created } = await createRetrying(call, () =>
    api.createSandbox(body, undefined, { timeout: Math.max(1, call.remainingMs()) }),
  ).catch((error: unknown) => {
    throw mapDaytonaError(error, { operation: "start (replacement)", sandboxId: record.id });
  });
  const id = validSandboxId(created.id);
  context.known.markOwned(id);
  try {
    const sandbox = await context.sandbox(id, "start", call);
    if (!isOwnedBy(sandbox.labels, context.options.owner)) throw foreignSandbox(PROVIDER, id, "start");
    if (sandbox.state !== "started") await sandbox.waitUntilStarted(seconds(call.remainingMs()));
    await repeatable(call, { operation: "start", sandboxId: id }, () =>
      sandbox.fs.createFolder(context.options.workspaceRoot, "755"),
    );
    await probe(context, sandbox, call);
    context.known.markPristine(id);
    return id;
  } catch (error) {
    await deleteSandbox(context, id, budget(context.options.timeouts.destroyMs)).catch(() => undefined);
    throw error;
  }
}

/** Deletes the replaced sandbox; one the delete fails for is deleted in the background (failures reach `onBackgroundError`). */
async function retire(context: DaytonaContext, sandboxId: string, call: OperationCall): Promise<void> {
  try {
    await deleteSandbox(context, sandboxId, call);
  } catch {
    context.background.track(async () => {
      await deleteSandbox(context, sandboxId, budget(context.options.timeouts.destroyMs));
    });
  }
  context.forget(sandboxId);
}

/** Refuses, before anything is created, to replace a sandbox whose handle cannot take the new id. */
function assertWritable(handle: unknown, sandboxId: string, unhealthy: SandportError): void {
  const descriptor = Object.getOwnPropertyDescriptor(handle, "id");
  if (!Object.isFrozen(handle) && descriptor?.writable === true) return;
  throw new SandportError({
    code: "INVALID_REQUEST",
    provider: PROVIDER,
    retryable: false,
    cause: unhealthy,
    message: `daytona sandbox ${sandboxId} failed to start (${unhealthy.message}); replacing it needs a handle whose id can be updated, and this one is frozen`,
    details: { sandboxId, field: "handle" },
  });
}

function notReady(sandboxId: string, unhealthy: SandportError): SandportError {
  return new SandportError({
    code: "PROVIDER_UNAVAILABLE",
    provider: PROVIDER,
    retryable: false,
    cause: unhealthy,
    message: `daytona sandbox ${sandboxId} did not become ready after start: ${unhealthy.message} (recreateOnFailedStart is false: nothing was replaced)`,
    details: { sandboxId },
  });
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
