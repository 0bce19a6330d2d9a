import { LEGACY_SANDBOX_USER, type ResolvedLocalOptions, type SandboxUser } from "../options.js";
import type { SandboxRecord } from "../store/sandbox-record.js";
import { UidPool } from "../store/uid-pool.js";

/**
 * Who probes bubblewrap, and whose passage through the root is checked: the configured `sandboxUser`, or
 * the first uid of `sandboxUids` (every uid of the range has the same rights on the host's files); none when
 * commands run as the runtime's own user.
 */
export function probeUser(options: ResolvedLocalOptions): SandboxUser | undefined {
  const { sandboxUser, sandboxUids } = options;
  return sandboxUser ?? (sandboxUids ? UidPool.userOf(sandboxUids.first) : undefined);
}

/**
 * The host user a sandbox's commands run as and its workspace files belong to, when not the runtime's own:
 * the one its record names (its own uid, or the `sandboxUser` it was launched with), else, for a root
 * runtime under namespaces, the one every sandbox ran as before records named theirs.
 */
export function userOf(record: SandboxRecord, options: ResolvedLocalOptions): SandboxUser | undefined {
  const { sandboxUser, sandboxUids } = options;
  if (!sandboxUser && !sandboxUids) return undefined;
  return record.user ?? sandboxUser ?? LEGACY_SANDBOX_USER;
}
