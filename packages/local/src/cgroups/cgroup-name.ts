import { createHash } from "node:crypto";
import { resolve } from "node:path";
import { identify, type ProcessIdentity } from "../processes/process-tree.js";

/** What a sandbox cgroup's name says: the sandbox, the process that made it, and whose root and owner it is for. */
export interface SandboxCgroupName {
  readonly id: string;
  readonly creator: ProcessIdentity;
  /** {@link rootTag} of the root and owner the sandbox was launched for. */
  readonly tag: string;
}

// `sandport-<id>.<creator pid>.<creator start time>.<root tag>`: ids hold no dot, so the fields split cleanly.
const NAME_PATTERN = /^sandport-([A-Za-z0-9][A-Za-z0-9_-]{0,127})\.(\d+)\.(\d+)\.([0-9a-f]{16})$/;

/**
 * The name of a sandbox's cgroups (the same in every hierarchy it uses). It
 * carries the launching process (pid and start time, safe against pid reuse)
 * and a tag of the root and owner, so that a later runtime over the same root
 * can prove a cgroup left by a launch killed midway its own and abandoned
 * (see `reclaimCgroups`). Where the process cannot be identified (not Linux,
 * which has no cgroups anyway) the plain `sandport-<id>` is used, never reclaimed.
 */
export function sandboxCgroupName(id: string, root: string, owner: string, creator = identify(process.pid)): string {
  if (creator === undefined) return `sandport-${id}`;
  return `sandport-${id}.${creator.pid}.${creator.startTime}.${rootTag(root, owner)}`;
}

/** What a cgroup name of {@link sandboxCgroupName}'s form says, or `undefined` for any other name. */
export function parseSandboxCgroupName(name: string): SandboxCgroupName | undefined {
  const match = NAME_PATTERN.exec(name);
  if (match === null) return undefined;
  return {
    id: match[1] as string,
    creator: { pid: Number(match[2]), startTime: match[3] as string },
    tag: match[4] as string,
  };
}

/** 16 hex digits naming a root (as an absolute path) and an owner together. */
export function rootTag(root: string, owner: string): string {
  return createHash("sha256")
    .update(`${resolve(root)}\0${owner}`)
    .digest("hex")
    .slice(0, 16);
}
