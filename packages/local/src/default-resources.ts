import { keyList, type ResourceLimits } from "@sandport/core";
import type { OptionReader } from "@sandport/core/adapter";
import { MIN_DISK_MIB } from "./disk/workspace-disk.js";

/**
 * The `defaultResources` option: the limits a launch gets for each field of
 * `LaunchSpec.resources` it leaves unset. A field given here replaces the
 * built-in default ({@link DEFAULT_RESOURCES}); `false` turns that one off;
 * an absent field keeps the built-in one.
 */
export interface LocalDefaultResources {
  /** Processes (and threads) alive at once in the sandbox. Built in: 512. */
  readonly maxProcesses?: number | false;
  /** Memory ceiling in MiB, swap included where the kernel accounts it. Built in: 2048 (2 GiB). */
  readonly memoryMiB?: number | false;
  /** Disk bound of the workspace in MiB (at least 8). Built in: 4096 (4 GiB). */
  readonly diskMiB?: number | false;
  /** CPU quota in cores. Built in: none (a CPU quota slows a sandbox down and protects nothing from exhaustion). */
  readonly cpus?: number | false;
}

/** Every key `defaultResources` may have. */
const DEFAULT_RESOURCE_KEYS = keyList<LocalDefaultResources>({
  maxProcesses: true,
  memoryMiB: true,
  diskMiB: true,
  cpus: true,
});

/**
 * The built-in default limits: 512 processes (threads count: a shell, a
 * language server, a build with a few dozen workers and a browser fit; a
 * fork bomb stops there instead of at the host's process table), 2 GiB of
 * memory (a compiler, a test run, a headless browser; not enough to push the
 * host into its own OOM killer when a few sandboxes misbehave at once) and a
 * 4 GiB workspace (a repository, its dependencies and a build; a sparse
 * image, so nothing is reserved until written). No CPU quota.
 */
export const DEFAULT_RESOURCES: Readonly<ResourceLimits> = Object.freeze({
  maxProcesses: 512,
  memoryMiB: 2048,
  diskMiB: 4096,
});

/**
 * The default limits the options ask for: the built-in ones, each replaced
 * by the option's field when given, dropped when that is `false`; none at all
 * for `defaultResources: false`. Throws `INVALID_REQUEST` for a malformed
 * value (a non-positive number, a fractional `maxProcesses`, `diskMiB` below
 * {@link MIN_DISK_MIB}).
 */
export function resolveDefaultResources(read: OptionReader, value: unknown): Readonly<ResourceLimits> {
  if (value === undefined) return DEFAULT_RESOURCES;
  if (value === false) return Object.freeze({});
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw read.refuse("defaultResources", "must be false or an object of maxProcesses, memoryMiB, diskMiB, cpus");
  }
  read.known(value, DEFAULT_RESOURCE_KEYS, "defaultResources.");
  const given = value as LocalDefaultResources;
  const resolved: Record<string, number> = {};
  for (const field of DEFAULT_RESOURCE_KEYS) {
    const chosen = given[field] === undefined ? DEFAULT_RESOURCES[field] : given[field];
    if (chosen === false || chosen === undefined) continue;
    const name = `defaultResources.${field}`;
    if (typeof chosen !== "number" || !Number.isFinite(chosen) || chosen <= 0) {
      throw read.refuse(name, "must be a positive number, or false for no default");
    }
    if (field === "maxProcesses" && !Number.isInteger(chosen)) throw read.refuse(name, "must be an integer");
    if (field === "diskMiB" && chosen < MIN_DISK_MIB) {
      throw read.refuse(name, `must be at least ${MIN_DISK_MIB} (a bounded workspace is an ext4 file system)`);
    }
    resolved[field] = chosen;
  }
  return Object.freeze(resolved as ResourceLimits);
}
