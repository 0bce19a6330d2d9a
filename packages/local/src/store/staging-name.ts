import { createHash } from "node:crypto";
import { identify, isAlive, type ProcessIdentity } from "../processes/process-tree.js";
import { launchInFlight } from "./launches-in-flight.js";

/** Prefix of half-built sandboxes; never listed, never a valid id. */
export const STAGING_PREFIX = ".staging-";

// `.staging-<id>.<creator pid>.<creator start time>.<owner tag>`: ids hold no dot, so the fields split cleanly.
const STAGING_PATTERN = /^\.staging-([A-Za-z0-9][A-Za-z0-9_-]{0,127})\.(\d+)\.(\d+)\.([0-9a-f]{16})$/;

/**
 * The name a sandbox is built under before it is renamed into place. It
 * carries the creating process (pid and start time, safe against pid reuse)
 * and a tag of the owner, so that a later runtime can prove a leftover of a
 * launch killed midway its own and abandoned ({@link abandonedStaging}).
 * Where the process cannot be identified (not Linux) the plain
 * `.staging-<id>` is used, which is never reclaimed.
 */
export function stagingName(id: string, owner: string, creator = identify(process.pid)): string {
  if (creator === undefined) return `${STAGING_PREFIX}${id}`;
  return `${STAGING_PREFIX}${id}.${creator.pid}.${creator.startTime}.${ownerTag(owner)}`;
}

/**
 * Whether `name` (an entry of the root) is a staging directory of `owner`
 * that nothing will finish: its creating process is gone, or it is this
 * process and the launch is no longer under way here (it failed and could not
 * remove it). Only a launch of this owner could have made it.
 */
export function abandonedStaging(name: string, owner: string): boolean {
  const match = STAGING_PATTERN.exec(name);
  if (match === null || match[4] !== ownerTag(owner)) return false;
  const creator: ProcessIdentity = { pid: Number(match[2]), startTime: match[3] as string };
  return abandonedBy(creator, match[1] as string);
}

/**
 * Whether whatever the launch of sandbox `id` by `creator` made is abandoned:
 * the process is gone, or it is this one and no longer launching `id`.
 */
export function abandonedBy(creator: ProcessIdentity, id: string): boolean {
  const self = identify(process.pid);
  if (self !== undefined && self.pid === creator.pid && self.startTime === creator.startTime) {
    return !launchInFlight(id);
  }
  return !isAlive(creator);
}

function ownerTag(owner: string): string {
  return createHash("sha256").update(owner).digest("hex").slice(0, 16);
}
