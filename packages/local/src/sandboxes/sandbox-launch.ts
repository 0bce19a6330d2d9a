/**
 * Making one sandbox once its launch was checked: its cgroups, its uid, its
 * namespaces, its record and files, the directories of its relays; each
 * undone again when a later step fails, so a failed launch leaves nothing.
 *
 * @module
 */

import { invalidRequest, type NetworkAllowList, type ResourceLimits, type ValidatedLaunchSpec } from "@sandport/core";
import { networkEnabled } from "@sandport/core/adapter";
import type { CgroupHost } from "../cgroups/cgroup-host.js";
import { sandboxCgroupName } from "../cgroups/cgroup-name.js";
import { createSandboxCgroups, removeSandboxCgroups } from "../cgroups/cgroups.js";
import { addFreezer } from "../cgroups/freezer.js";
import { diskBytes } from "../disk/workspace-disk.js";
import { errorCode } from "../files/file-errors.js";
import type { FileOwner } from "../files/workspace-walk.js";
import { LOCAL_PROVIDER, type ResolvedLocalOptions } from "../options.js";
import { killNamespaceHolder, type NamespaceHolder } from "../processes/sandbox-namespaces.js";
import { SANDBOX_RECORD_FORMAT, type SandboxRecord } from "../store/sandbox-record.js";
import type { SandboxStore } from "../store/sandbox-store.js";
import { type TakenUid, UidPool } from "../store/uid-pool.js";
import { prepareEgressDirectory, preparePortsDirectory, startNamespaces } from "./sandbox-setup.js";

/** Fills a new sandbox's workspace (a snapshot's files), as `owner` when given. */
export type WorkspaceSeed = (workspace: string, owner: FileOwner | undefined) => Promise<void>;

/** How a launch's network is had, decided before anything is made. */
export interface LaunchNetwork {
  readonly ports: ValidatedLaunchSpec["ports"];
  /** What its commands reach through this runtime's egress proxy. */
  readonly egress: NetworkAllowList | "all" | undefined;
  /** Whether commands share the host's network. */
  readonly network: boolean;
  /** Whether its ports are reached through the relay. */
  readonly relayed: boolean;
}

/** What a launch decided before making anything. */
export interface LaunchPlan extends LaunchNetwork {
  readonly spec: ValidatedLaunchSpec;
  readonly resources: ResourceLimits | undefined;
  /** Which of `resources` came from the runtime's defaults. */
  readonly defaulted: readonly (keyof ResourceLimits)[];
}

/** What making a sandbox reads from the runtime's sandbox access. */
export interface LaunchContext {
  readonly options: ResolvedLocalOptions;
  readonly store: SandboxStore;
  readonly host: CgroupHost;
  /** Whether the sandbox must get a freezer cgroup (the runtime can stop sandboxes). */
  readonly freezable: boolean;
  /** Removes a sandbox whose record was written, as `destroy` does. */
  destroy(record: SandboxRecord): Promise<void>;
}

/**
 * The network of a launch: an allow list, or `"all"` under namespaces
 * without `hostNetwork`, gives it no network of its own; its commands reach
 * out only through this runtime's egress proxy (to public addresses only, for
 * `"all"`). A sandbox without network reaches its ports through a relay.
 */
export function launchNetwork(spec: ValidatedLaunchSpec, options: ResolvedLocalOptions): LaunchNetwork {
  const { isolation } = options;
  const ports = spec.ports && spec.ports.length > 0 ? spec.ports : undefined;
  const open =
    typeof spec.network === "object" ? false : networkEnabled(spec.network, isolation === "none", LOCAL_PROVIDER);
  const proxied = open && isolation === "namespaces" && !options.hostNetwork;
  const egress = typeof spec.network === "object" ? spec.network : proxied ? "all" : undefined;
  const network = open && !proxied;
  return { ports, egress, network, relayed: ports !== undefined && isolation === "namespaces" && !network };
}

/**
 * Makes sandbox `id` as `plan` says and returns its record, written to disk.
 * If `signal` fired meanwhile (the caller was already told it failed), removes it again.
 */
export async function makeSandbox(
  context: LaunchContext,
  id: string,
  plan: LaunchPlan,
  signal: AbortSignal,
  seed?: WorkspaceSeed,
): Promise<SandboxRecord> {
  const { options, store, host } = context;
  const { resources, defaulted, relayed, egress } = plan;
  const name = sandboxCgroupName(id, store.root, options.owner);
  // Under namespaces a command's processes die with its PID namespace: a cgroup is needed only for limits
  // and, where the runtime can stop sandboxes, the freezer.
  const tracking = options.cgroups === "auto" && options.isolation === "none";
  let cgroups = await createSandboxCgroups(host, name, resources ? { resources, tracking } : { tracking });
  if (context.freezable) {
    try {
      cgroups = await addFreezer(host, name, cgroups);
    } catch (error) {
      await removeSandboxCgroups(cgroups);
      throw error;
    }
  }
  let taken: TakenUid | undefined;
  let namespaces: NamespaceHolder | undefined;
  const { sandboxUids } = options;
  try {
    if (sandboxUids) taken = await new UidPool(sandboxUids.directory, sandboxUids).take(id, store.root);
    namespaces = await startNamespaces(options, plan.network, taken?.user ?? options.sandboxUser, name);
  } catch (error) {
    if (taken) await UidPool.giveBack(taken.marker, id).catch(() => {});
    await removeSandboxCgroups(cgroups);
    throw error;
  }
  const record: SandboxRecord = {
    ...recordOf(id, plan, options),
    ...(cgroups ? { cgroups } : {}),
    ...(namespaces ? { namespaces } : {}),
    ...(taken ? { user: taken.user, uidMarker: taken.marker } : {}),
    ...(options.sandboxUser ? { user: options.sandboxUser } : {}),
  };
  try {
    await store.create(record, seed);
  } catch (error) {
    if (namespaces) await killNamespaceHolder(namespaces, 2_000);
    if (taken) await UidPool.giveBack(taken.marker, id).catch(() => {});
    await removeSandboxCgroups(cgroups);
    if (record.disk && seed && errorCode(error) === "ENOSPC") {
      const bound = defaulted.includes("diskMiB")
        ? " (the runtime's default, defaultResources.diskMiB: name a larger resources.diskMiB in the launch)"
        : "";
      throw invalidRequest(
        `the snapshot's files do not fit in resources.diskMiB (${resources?.diskMiB} MiB${bound})`,
        { field: "resources.diskMiB" },
        LOCAL_PROVIDER,
      );
    }
    throw error;
  }
  if (relayed || egress) {
    try {
      // A sandbox of its own uid: its relays' sockets are its alone (and root's).
      const group = taken?.user.gid;
      if (relayed) await preparePortsDirectory(store.portsDirectory(id), group);
      if (egress) await prepareEgressDirectory(store.egressDirectory(id), group);
    } catch (error) {
      await context.destroy(record).catch(() => {});
      throw error;
    }
  }
  if (signal.aborted) {
    // The caller has already been told the launch failed: leave nothing behind.
    await context.destroy(record).catch(() => {});
    throw signal.reason;
  }
  return record;
}

/** The parts of a new sandbox's record its launch alone decides. */
function recordOf(id: string, plan: LaunchPlan, options: ResolvedLocalOptions): SandboxRecord {
  const { spec, resources, defaulted, ports, egress, network } = plan;
  const now = Date.now();
  return {
    format: SANDBOX_RECORD_FORMAT,
    id,
    owner: options.owner,
    createdAt: new Date(now).toISOString(),
    labels: spec.labels ?? {},
    ...(spec.launchKey === undefined ? {} : { launchKey: spec.launchKey }),
    env: spec.env ?? {},
    network,
    ...(resources ? { resources } : {}),
    ...(defaulted.length > 0 ? { defaults: defaulted } : {}),
    ...(ports ? { ports } : {}),
    ...(egress ? { egress } : {}),
    ...(spec.lifetimeMs === undefined ? {} : { expiresAt: new Date(now + spec.lifetimeMs).toISOString() }),
    ...(resources?.diskMiB === undefined ? {} : { disk: { bytes: diskBytes(resources.diskMiB) } }),
  };
}
