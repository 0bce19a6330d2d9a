import { type OpOptions, retry } from "@sandport/core";
import { createCallBudget, type OperationCall, onOwnedInfo } from "@sandport/core/adapter";
import { refusedOnly } from "./command-plan.js";
import { type DaytonaContext, seconds } from "./context.js";
import { type DaytonaHandle, handleFromSandbox, validSandboxId } from "./handle.js";
import type { DaytonaSandboxRecord } from "./internal/sdk-types.js";
import { replacementBody } from "./launch-plan.js";
import { deleteSandbox, probe, startAndProbe } from "./lifecycle.js";
import { repeatable } from "./run-script.js";

/**
 * `DaytonaRuntime.recreate`: starts the sandbox and proves it like `start`;
 * a healthy one resolves a handle to itself. One that fails to start or
 * fails the probe is replaced: a new sandbox launched the same way (snapshot
 * or build, labels, env, lifecycle intervals, volumes, network) is started
 * and proven with the same probe, then the unusable one is deleted, and the
 * new sandbox's handle resolves. The caller's handle is never changed; the
 * replacement has none of the old sandbox's files. A replacement that fails
 * is deleted and the old sandbox kept.
 */
export function recreate(context: DaytonaContext, handle: unknown, op?: OpOptions): Promise<DaytonaHandle> {
  const { lifecycleMs } = context.options.timeouts;
  return onOwnedInfo(context, handle, op, "recreate", lifecycleMs, async (record, call, sandboxId) => {
    if ((await startAndProbe(context, record, call)) === undefined) return handleFromSandbox(record);
    const replacement = await replace(context, record, call);
    await retire(context, sandboxId, call);
    return replacement;
  });
}

/**
 * Launches a replacement for `record` (through the low-level API: the same
 * create body), waits until it is started, creates its workspace and proves
 * it with the probe; resolves its handle. A replacement that fails is
 * deleted, and the failure propagates (the old sandbox is kept).
 */
async function replace(
  context: DaytonaContext,
  record: DaytonaSandboxRecord,
  call: OperationCall,
): Promise<DaytonaHandle> {
  const api = await context.api();
  const body = replacementBody(context.options, record);
  const { data: created } = await retry(
    () => api.createSandbox(body, undefined, { timeout: Math.max(1, call.remainingMs()) }),
    refusedOnly(call.signal),
  );
  const id = validSandboxId(created.id);
  context.known.markOwned(id);
  try {
    const sandbox = await context.instance(id, "recreate", call);
    if (sandbox.state !== "started") await sandbox.waitUntilStarted(seconds(call.remainingMs()));
    await repeatable(call, { operation: "recreate", sandboxId: id }, () =>
      sandbox.fs.createFolder(context.options.workspaceRoot, "755"),
    );
    await probe(context, sandbox, call);
    context.known.markPristine(id);
    return handleFromSandbox(created);
  } catch (error) {
    await deleteSandbox(context, id, createCallBudget(context.options.timeouts.destroyMs)).catch(() => undefined);
    throw error;
  }
}

/** Deletes the replaced sandbox; one the delete fails for is deleted in the background (failures reach `onBackgroundError`). */
async function retire(context: DaytonaContext, sandboxId: string, call: OperationCall): Promise<void> {
  const later = async () => {
    await deleteSandbox(context, sandboxId, createCallBudget(context.options.timeouts.destroyMs));
  };
  await deleteSandbox(context, sandboxId, call).catch(() => context.background.track(later));
  context.forget(sandboxId);
}
