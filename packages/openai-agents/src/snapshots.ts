import type { Manifest, Snapshot, SnapshotSpec } from "@openai/agents-core/sandbox";
import {
  type Labels,
  resolveCapabilities,
  type SandboxHandle,
  type SandboxRuntime,
  type SnapshotRef,
  validateLabels,
} from "@sandport/core";
import type { AgentsSdk } from "./internal/sdk.js";
import type { SandportSessionState } from "./session.js";

/** The `type` of {@link SandportSnapshotSpec} and {@link SandportSnapshot}. */
export const SANDPORT_SNAPSHOT_TYPE = "sandport";

/** The label every snapshot the client takes carries: the id of the sandbox it was taken from. */
export const SNAPSHOT_SANDBOX_LABEL = "openai-agents/sandbox-id";

/**
 * An OpenAI Agents snapshot spec whose snapshots are the runtime's own (the
 * port's `snapshot`): pass it as `create({ snapshot })` or the run config's
 * `sandbox.snapshot`. Made by {@link sandportSnapshot}.
 */
export interface SandportSnapshotSpec extends SnapshotSpec {
  readonly type: typeof SANDPORT_SNAPSHOT_TYPE;
  /** Labels every snapshot taken under the spec carries, beside `openai-agents/sandbox-id`. */
  readonly labels?: Labels;
}

/** A snapshot a session's state records: the framework's `{ id, type }` plus the port's `SnapshotRef`. */
export interface SandportSnapshot extends Snapshot {
  readonly id: string;
  readonly type: typeof SANDPORT_SNAPSHOT_TYPE;
  /** The port's reference, which `launch({ from })` restores from. */
  readonly ref: SnapshotRef;
}

/**
 * The snapshot spec of a session whose workspace is kept in the runtime's
 * snapshots: serialising its state takes one (replacing the one before), and
 * resuming it once its sandbox is gone launches a new sandbox from it. Labels
 * are checked as the port checks them (reserved `sandport.*` keys refused).
 */
export function sandportSnapshot(options: { readonly labels?: Labels } = {}): SandportSnapshotSpec {
  const labels = validateLabels(options.labels, { field: "sandportSnapshot labels" });
  return labels === undefined ? { type: SANDPORT_SNAPSHOT_TYPE } : { type: SANDPORT_SNAPSHOT_TYPE, labels };
}

/** Whether the runtime has the port's snapshots (`snapshot`, `listSnapshots`, `deleteSnapshot`, `launch({ from })`). */
export function hasSnapshots<H extends SandboxHandle>(runtime: SandboxRuntime<H>): boolean {
  return resolveCapabilities(runtime).snapshots === true;
}

/**
 * The spec a session is created with, checked before anything is launched:
 * none or the framework's `noop` spec is no snapshots (`null`); a
 * {@link SandportSnapshotSpec} needs the runtime's snapshots and a manifest
 * without `ephemeral` entries (the port's snapshot copies the whole
 * workspace and cannot leave them out, as the framework's own snapshots do);
 * the framework's `local` (a host directory) and `remote` (a workspace
 * archive in a store) specs, and any other, are refused. Every refusal is
 * `SandboxUnsupportedFeatureError` (feature `snapshot`).
 */
export function checkSnapshotSpec<H extends SandboxHandle>(
  sdk: AgentsSdk,
  runtime: SandboxRuntime<H>,
  spec: SnapshotSpec | null | undefined,
  manifest: Manifest,
): SandportSnapshotSpec | null {
  if (spec === undefined || spec === null || sdk.isNoopSnapshotSpec(spec)) return null;
  const refuse = (message: string) =>
    new sdk.SandboxUnsupportedFeatureError(message, {
      provider: runtime.provider,
      feature: "snapshot",
      type: spec.type,
    });
  if (spec.type !== SANDPORT_SNAPSHOT_TYPE) {
    throw refuse(
      `snapshot specs of type "${String(spec.type)}" keep the workspace on the host or in an archive store, which a Sandport sandbox cannot: use sandportSnapshot() for the runtime's own snapshots`,
    );
  }
  if (!hasSnapshots(runtime)) throw refuse(`${runtime.provider} has no snapshots: sandportSnapshot() needs them`);
  const ephemeral = [...manifest.ephemeralPersistencePaths()];
  if (ephemeral.length > 0) {
    throw refuse(
      `the manifest's ephemeral entries (${ephemeral.join(", ")}) would be kept: a runtime snapshot copies the whole workspace`,
    );
  }
  return sandportSnapshot({ ...(spec.labels === undefined ? {} : { labels: spec.labels as Labels }) });
}

/**
 * Takes a snapshot of the state's sandbox under `spec`, labelled with the
 * sandbox's id, records it as the state's `snapshot`, and deletes the one
 * the state had before once it is taken (as the framework's own clients
 * replace a session's snapshot): a session keeps one. A runtime without
 * snapshots (a state recorded elsewhere) is `SandboxUnsupportedFeatureError`.
 */
export async function replaceSnapshot<H extends SandboxHandle>(
  sdk: AgentsSdk,
  runtime: SandboxRuntime<H>,
  state: SandportSessionState<H>,
  spec: SandportSnapshotSpec,
): Promise<SandportSnapshot> {
  if (!hasSnapshots(runtime) || !runtime.snapshot || !runtime.deleteSnapshot) {
    throw new sdk.SandboxUnsupportedFeatureError(
      `${runtime.provider} has no snapshots: the session's cannot be taken`,
      {
        provider: runtime.provider,
        feature: "snapshot",
      },
    );
  }
  const { sandbox } = state;
  const previous = state.snapshot ?? null;
  const ref = await runtime.snapshot(sandbox, { labels: { ...spec.labels, [SNAPSHOT_SANDBOX_LABEL]: sandbox.id } });
  // Recorded before the old one is deleted: a failed delete leaves the old one behind, never the state without its newest.
  const taken: SandportSnapshot = { id: ref.id, type: SANDPORT_SNAPSHOT_TYPE, ref };
  state.snapshot = taken;
  if (previous !== null && previous.ref.id !== ref.id) await runtime.deleteSnapshot(previous.ref);
  return taken;
}

/** A recorded snapshot of this runtime's, or `null` (anything else in a stored record is not ours to restore). */
export function recordedSnapshot(value: unknown, provider: string): SandportSnapshot | null {
  if (typeof value !== "object" || value === null) return null;
  const { type, ref } = value as { type?: unknown; ref?: Partial<SnapshotRef> };
  if (type !== SANDPORT_SNAPSHOT_TYPE || typeof ref?.id !== "string" || ref.provider !== provider) return null;
  return { id: ref.id, type: SANDPORT_SNAPSHOT_TYPE, ref: ref as SnapshotRef };
}

/** A recorded {@link SandportSnapshotSpec}, or `null` for none (any other spec was refused at `create`). */
export function recordedSnapshotSpec(value: unknown): SandportSnapshotSpec | null {
  if (typeof value !== "object" || value === null || (value as SnapshotSpec).type !== SANDPORT_SNAPSHOT_TYPE)
    return null;
  const { labels } = value as { labels?: unknown };
  return sandportSnapshot(labels === undefined ? {} : { labels: labels as Labels });
}
