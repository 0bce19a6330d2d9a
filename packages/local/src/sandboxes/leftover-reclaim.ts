/**
 * What a runtime reclaims beyond the store's staging directories: what a
 * killed or failed launch of this root and owner left where no listing shows
 * it.
 *
 * @module
 */

import { probeCgroupHost } from "../cgroups/cgroup-host.js";
import { reclaimCgroups } from "../cgroups/cgroup-leftovers.js";
import { reclaimEgressSockets } from "../egress/egress-socket-name.js";
import type { ResolvedLocalOptions } from "../options.js";
import { reclaimHolders } from "../store/holder-leftovers.js";
import type { Leftover } from "../store/leftover-report.js";
import type { SandboxStore } from "../store/sandbox-store.js";
import { reclaimUidMarkers } from "../store/uid-leftovers.js";

/**
 * Removes the sandbox cgroups of this root and owner that nothing will use
 * (unless cgroups are `"disabled"`), then the egress sockets of gone
 * processes in this owner's sandboxes, then (with one uid per sandbox) the
 * uid markers of this root's launches killed before their record existed,
 * and (under `namespaceScope: "sandbox"`) their namespace holders. Returns
 * what it removed.
 */
export async function reclaimRuntimeLeftovers(options: ResolvedLocalOptions, store: SandboxStore): Promise<Leftover[]> {
  const holds = (id: string) => store.holds(id);
  const cgroups =
    options.cgroups === "auto"
      ? await reclaimCgroups({ root: store.root, owner: options.owner, host: await probeCgroupHost(), holds })
      : [];
  const egress = (await store.records()).filter((record) => record.egress !== undefined);
  const sockets = await reclaimEgressSockets(egress.map((record) => store.egressDirectory(record.id)));
  const { sandboxUids } = options;
  const uids = sandboxUids
    ? await reclaimUidMarkers({ directory: sandboxUids.directory, root: store.root, holds, range: sandboxUids })
    : [];
  // Only a root runtime makes holders (`namespaceScope: "sandbox"`); those of a uid of their own went with it above.
  const holders =
    options.namespaceScope === "sandbox" ? await reclaimHolders({ root: store.root, owner: options.owner, holds }) : [];
  return [...cgroups, ...sockets, ...uids, ...holders];
}
