import type { GrantedResources, SandboxHandle } from "@sandport/core";
import type { SandboxRecord } from "./store/sandbox-record.js";

/**
 * A local sandbox. Plain data: log it, serialise it, or rebuild it in another
 * process with `LocalRuntime.getById(id)`.
 */
export interface LocalHandle extends SandboxHandle {
  /** Always `"local"`. */
  readonly provider: "local";
  /** Creation time, ISO-8601. */
  readonly createdAt: string;
  /**
   * Host directory of the workspace, for inspection and debugging. Informational
   * only: the runtime locates a sandbox from `id` and its own `root`, never from this field.
   */
  readonly workspaceDirectory: string;
  /**
   * Whether commands in this sandbox share the host's network (fixed at launch): `true` under
   * `isolation: "none"` and for `"all"` with the `hostNetwork` option; `false` for `"none"`, for an
   * allow list and for `"all"` without `hostNetwork` (whose commands reach out only through the
   * egress proxy).
   */
  readonly network: boolean;
}

/** Builds the handle for a stored sandbox. */
export function toHandle(record: SandboxRecord, workspaceDirectory: string): LocalHandle {
  return Object.freeze({
    id: record.id,
    provider: "local",
    labels: Object.freeze({ ...record.labels }),
    createdAt: record.createdAt,
    workspaceDirectory,
    network: record.network,
    ...grantedResources(record),
  });
}

/**
 * What the sandbox is held to: its memory, CPU and process limits where it
 * has limit cgroups that enforce them, its disk bound where its workspace is
 * a bounded file system. Nothing else: a limit it was not given is absent.
 */
function grantedResources(record: SandboxRecord): { resources?: GrantedResources } {
  const { diskMiB, ...cgroupLimits } = record.resources ?? {};
  const granted = {
    ...((record.cgroups?.limits.length ?? 0) > 0 ? cgroupLimits : {}),
    ...(diskMiB !== undefined && record.disk ? { diskMiB } : {}),
  };
  return Object.keys(granted).length > 0 ? { resources: Object.freeze(granted) } : {};
}
