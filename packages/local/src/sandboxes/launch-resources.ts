import { statfs } from "node:fs/promises";
import type { ResourceLimits } from "@sandport/core";
import { diskBytes } from "../disk/workspace-disk.js";
import type { ResolvedLocalOptions } from "../options.js";
import type { LimitVerdicts } from "./sandbox-setup.js";

/** A field of `LaunchSpec.resources`. */
export type ResourceField = keyof ResourceLimits;

/**
 * Which of the configured default limits (`defaultResources`) a runtime
 * applies to a launch that leaves the field unset, and why each other one is
 * not applied. Decided at construction, from the same verdicts that decide
 * `memoryLimit`, `processLimit`, `cpuLimit` and `diskLimit`.
 */
export interface DefaultResourcesReport {
  /** The defaults a launch gets; a disk bound only while the host has room for it (see `LocalRuntimeOptions.defaultResources`). */
  readonly applied: Readonly<ResourceLimits>;
  /** Each configured default this runtime cannot enforce, with the reason; absent fields were not configured or apply. */
  readonly notApplied: Readonly<Partial<Record<ResourceField, string>>>;
}

/** The cgroup controller verdict behind each cgroup-enforced field. */
const CONTROLLER = { memoryMiB: "memory", cpus: "cpu", maxProcesses: "pids" } as const;

/**
 * Sorts the configured defaults into those this runtime can enforce and
 * those it cannot (with `cgroups: "disabled"`, no usable controller, or no
 * way to bound a workspace), never refusing anything: a default that cannot
 * be enforced is left out of every launch, and said so here.
 */
export function judgeDefaults(options: ResolvedLocalOptions, verdicts: LimitVerdicts): DefaultResourcesReport {
  const applied: Partial<Record<ResourceField, number>> = {};
  const notApplied: Partial<Record<ResourceField, string>> = {};
  for (const [field, value] of Object.entries(options.defaultResources) as [ResourceField, number][]) {
    let reason: string | undefined;
    if (field === "diskMiB") {
      if (!verdicts.disk.ok) reason = verdicts.disk.reason;
    } else if (options.cgroups === "disabled") {
      reason = 'cgroups are disabled in the options (cgroups: "disabled")';
    } else {
      const verdict = verdicts.cgroups[CONTROLLER[field]];
      if (!verdict.ok) reason = verdict.reason;
    }
    if (reason === undefined) applied[field] = value;
    else notApplied[field] = reason;
  }
  return Object.freeze({ applied: Object.freeze(applied), notApplied: Object.freeze(notApplied) });
}

/** What a launch is given: its own limits with the applicable defaults beneath, and which fields are defaults. */
export interface GrantedLimits {
  /** Every limit the sandbox gets; `undefined` when none. */
  readonly resources: ResourceLimits | undefined;
  /** The fields of `resources` that came from the runtime's defaults, not from the launch. */
  readonly defaulted: readonly ResourceField[];
}

/**
 * The launch's own limits (`explicit`, already checked enforceable), with
 * each applicable default for a field it leaves unset. A default disk bound
 * is dropped when the host file system holding the sandbox root (`root`,
 * which creates it when needed and returns its path) has less free space
 * than the bound: an explicit one is refused there, a default must not fail
 * the launch.
 */
export async function grantResources(
  explicit: ResourceLimits | undefined,
  defaults: DefaultResourcesReport,
  root: () => Promise<string>,
): Promise<GrantedLimits> {
  const granted: Partial<Record<ResourceField, number>> = { ...explicit };
  const defaulted: ResourceField[] = [];
  for (const [field, value] of Object.entries(defaults.applied) as [ResourceField, number][]) {
    if (granted[field] !== undefined) continue;
    if (field === "diskMiB" && !(await hasRoom(await root(), diskBytes(value)))) continue;
    granted[field] = value;
    defaulted.push(field);
  }
  return { resources: Object.keys(granted).length > 0 ? granted : undefined, defaulted };
}

/** Whether the file system holding `directory` has at least `bytes` free for this process now. */
async function hasRoom(directory: string, bytes: number): Promise<boolean> {
  const host = await statfs(directory);
  return host.bavail * host.bsize >= bytes;
}
