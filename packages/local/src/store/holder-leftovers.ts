/**
 * The namespace holders of launches killed before their sandbox's record
 * existed (`namespaceScope: "sandbox"`): nothing records them, and with one
 * `sandboxUser` for every sandbox their uid says nothing either; their own
 * environment names their launch (`HOLDER_VARIABLE`).
 *
 * @module
 */

import { parseSandboxCgroupName, rootTag } from "../cgroups/cgroup-name.js";
import { eachProcessFile, signalProcess } from "../processes/process-tree.js";
import { HOLDER_VARIABLE } from "../processes/sandbox-namespaces.js";
import { failureReason, type Leftover } from "./leftover-report.js";
import { abandonedBy } from "./staging-name.js";

/** What {@link reclaimHolders} works from. */
export interface HolderReclaim {
  /** The sandbox root, as the runtime names it. */
  readonly root: string;
  readonly owner: string;
  /** Whether the root holds anything under sandbox id `id` (a live sandbox, or a directory in the way). */
  readonly holds: (id: string) => Promise<boolean>;
}

/**
 * Kills every process whose environment names a holder made for this root
 * and owner by a launch that is over (its process gone, or this process no
 * longer launching that id), for a sandbox the root does not hold: killing
 * the holder ends its PID namespace, and everything in it. Reported as
 * `process` leftovers. Processes whose environment this process cannot read
 * (another user's, as a non-root runtime, which makes no holders) are passed by.
 */
export async function reclaimHolders(input: HolderReclaim): Promise<Leftover[]> {
  const tag = rootTag(input.root, input.owner);
  const prefix = `${HOLDER_VARIABLE}=`;
  const leftovers: Leftover[] = [];
  for await (const { pid, text: environment } of eachProcessFile("environ", "latin1")) {
    const entry = environment.split("\0").find((variable) => variable.startsWith(prefix));
    const launch = entry === undefined ? undefined : parseSandboxCgroupName(entry.slice(prefix.length));
    if (launch?.tag !== tag || !abandonedBy(launch.creator, launch.id) || (await input.holds(launch.id))) continue;
    const path = `/proc/${pid}`;
    try {
      if (signalProcess(pid, "SIGKILL")) leftovers.push({ kind: "process", path, reclaimed: true });
    } catch (error) {
      leftovers.push({ kind: "process", path, reclaimed: false, reason: failureReason(error) });
    }
  }
  return leftovers;
}
