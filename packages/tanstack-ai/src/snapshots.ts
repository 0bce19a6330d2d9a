import { randomUUID } from "node:crypto";
import {
  type LaunchSpec,
  resolveCapabilities,
  type SandboxHandle,
  type SandboxRuntime,
  SandportError,
} from "@sandport/core";
import type { SnapshotRef as TanStackSnapshotRef } from "@tanstack/ai-sandbox";
import { type HandleContext, unsupportedCapability } from "./context.js";
import { type LabelledSandbox, launchLabelled } from "./launch-labelled.js";
import { SANDBOX_ID_LABEL } from "./options.js";

/** The label a snapshot taken by `handle.snapshot(label)` carries its `label` in. */
export const SNAPSHOT_LABEL = "tanstack-ai/snapshot-label";

/** Whether the runtime has the port's snapshots (`snapshot`, `listSnapshots`, `deleteSnapshot`, `launch({ from })`). */
export function hasSnapshots<H extends SandboxHandle>(runtime: SandboxRuntime<H>): boolean {
  return resolveCapabilities(runtime).snapshots === true;
}

/**
 * `handle.snapshot(label)`: a port snapshot of the sandbox labelled with the
 * handle's id (`tanstack-ai/sandbox-id`) and the label, if any
 * (`tanstack-ai/snapshot-label`); TanStack AI's ref is its id and the label.
 * Without the port's snapshots: TanStack AI's unsupported error, nothing taken.
 */
export async function takeSnapshot<H extends SandboxHandle>(
  context: HandleContext<H>,
  handleId: string,
  label: string | undefined,
): Promise<TanStackSnapshotRef> {
  const { runtime, sandbox } = context;
  if (!hasSnapshots(runtime) || !runtime.snapshot) throw unsupportedCapability(context, "snapshots", "snapshots");
  const labels: Record<string, string> = { [SANDBOX_ID_LABEL]: handleId };
  if (label !== undefined) labels[SNAPSHOT_LABEL] = label;
  const ref = await runtime.snapshot(sandbox, { labels });
  return label === undefined ? { id: ref.id } : { id: ref.id, label };
}

/**
 * `handle.fork()`: a new sandbox from the sandbox's state now. Where the
 * runtime has its own `fork`, that is it: the new sandbox carries the
 * source's labels with a fresh `tanstack-ai/sandbox-id` (and the source's
 * launch env, which `spec` was launched with), and no snapshot is taken.
 * Otherwise it is a snapshot and a launch from it; the snapshot is deleted once the new sandbox is up, so
 * a fork leaves no snapshot behind. The new sandbox is launched with `spec`
 * under a fresh id. Without the port's snapshots: TanStack AI's unsupported
 * error, nothing launched. A failure after the launch destroys the new
 * sandbox before it is reported, so a failed fork leaves nothing either.
 * The snapshot is labelled with the source handle's id while it exists.
 */
export async function forkSandbox<H extends SandboxHandle>(
  context: HandleContext<H>,
  handleId: string,
  spec: LaunchSpec,
): Promise<LabelledSandbox<H>> {
  const { runtime, sandbox } = context;
  if (runtime.fork && resolveCapabilities(runtime).fork === true) {
    const id = randomUUID();
    const forked = await runtime.fork(sandbox, { labels: { ...sandbox.labels, [SANDBOX_ID_LABEL]: id } });
    return { sandbox: forked, handleId: runtime.findByLabels ? id : forked.id };
  }
  if (!hasSnapshots(runtime) || !runtime.snapshot || !runtime.deleteSnapshot) {
    throw unsupportedCapability(context, "fork", "snapshots");
  }
  const deleteSnapshot = runtime.deleteSnapshot.bind(runtime);
  const ref = await runtime.snapshot(sandbox, { labels: { [SANDBOX_ID_LABEL]: handleId } });
  let forked: LabelledSandbox<H>;
  try {
    forked = await launchLabelled(context, { ...spec, from: ref }, randomUUID(), {});
  } catch (error) {
    await deleteSnapshot(ref).catch((deleteError: unknown) => {
      throw leftBehind(
        context,
        `the fork could not be launched and its snapshot ${ref.id} could not be deleted`,
        error,
        deleteError,
      );
    });
    throw error;
  }
  try {
    await deleteSnapshot(ref);
  } catch (error) {
    await runtime.destroy(forked.sandbox).catch((destroyError: unknown) => {
      throw leftBehind(
        context,
        `snapshot ${ref.id} and the fork ${forked.sandbox.id} could not be removed`,
        error,
        destroyError,
      );
    });
    throw error;
  }
  return forked;
}

/** The error of a fork whose clean-up failed too: both failures, and what is left behind in the message. */
function leftBehind(
  context: HandleContext<SandboxHandle>,
  what: string,
  error: unknown,
  cleanupError: unknown,
): SandportError {
  return new SandportError({
    code: "UNEXPECTED",
    provider: context.runtime.provider,
    message: `fork failed: ${what}: ${messageOf(error)}; clean-up: ${messageOf(cleanupError)}`,
    cause: error,
    details: { cleanupError },
  });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
