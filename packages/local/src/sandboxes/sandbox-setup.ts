import { chmod, chown, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type ResourceLimits, SandportError, unsupported, type ValidatedLaunchSpec } from "@sandport/core";
import { refuseUnenforceableNetwork } from "@sandport/core/adapter";
import { localCapabilities } from "../capabilities.js";
import type { LimitsSupport } from "../cgroups/limit-support.js";
import type { DiskSupport } from "../disk/disk-support.js";
import { MIN_DISK_MIB } from "../disk/workspace-disk.js";
import { EGRESS_RELAY_FILE, EGRESS_RELAY_SOURCE } from "../egress/egress-relay-source.js";
import { LOCAL_PROVIDER, type ResolvedLocalOptions, type SandboxUser } from "../options.js";
import { RELAY_FILE, RELAY_SOURCE } from "../ports/port-relay-source.js";
import {
  type NamespaceHolder,
  NSENTER_PATH,
  startNamespaceHolder,
  UNSHARE_PATH,
} from "../processes/sandbox-namespaces.js";

/** What this runtime decided at construction about the limits it can enforce (see `LocalRuntime`). */
export interface LimitVerdicts {
  /** `memoryMiB`, `cpus`, `maxProcesses`: the cgroup hierarchies this process may use. */
  readonly cgroups: LimitsSupport;
  /** `diskMiB`: whether workspaces can be loop-mounted images here. */
  readonly disk: DiskSupport;
}

/**
 * Refuses (`UNSUPPORTED`) a launch the runtime cannot honour with its
 * options: a template, `network: "none"` under `none`, a network policy
 * beyond the declared `networkPolicy`, resource limits without cgroups, a
 * limit the construction found no way to enforce (naming why), a disk bound
 * below {@link MIN_DISK_MIB}. All before anything is created. Returns the
 * resource limits asked for, if any.
 */
export function checkLaunchable(
  spec: ValidatedLaunchSpec,
  options: ResolvedLocalOptions,
  verdicts: LimitVerdicts,
): ResourceLimits | undefined {
  if (spec.template !== undefined) {
    throw unsupported(LOCAL_PROVIDER, "templates", "commands run on the host's /usr; launch without a template");
  }
  if (options.isolation === "none" && spec.network === "none") {
    throw unsupported(LOCAL_PROVIDER, 'network: "none"', 'isolation "none" cannot keep commands off the network');
  }
  refuseUnenforceableNetwork(spec.network, localCapabilities(options.isolation).modes.networkPolicy, LOCAL_PROVIDER);
  const resources = spec.resources && Object.keys(spec.resources).length > 0 ? spec.resources : undefined;
  if (resources?.diskMiB !== undefined) {
    const { disk } = verdicts;
    if (!disk.ok) throw unsupported(LOCAL_PROVIDER, "resources.diskMiB", disk.reason);
    if (resources.diskMiB < MIN_DISK_MIB) {
      throw unsupported(
        LOCAL_PROVIDER,
        `resources.diskMiB below ${MIN_DISK_MIB}`,
        "a bounded workspace is an ext4 file system, whose own structures leave next to nothing in less",
      );
    }
  }
  const cgroupLimits: [keyof ResourceLimits, keyof LimitsSupport][] = [
    ["memoryMiB", "memory"],
    ["cpus", "cpu"],
    ["maxProcesses", "pids"],
  ];
  for (const [field, controller] of cgroupLimits) {
    if (resources?.[field] === undefined) continue;
    if (options.cgroups === "disabled") {
      throw unsupported(LOCAL_PROVIDER, "resources", 'cgroups are disabled in the options (cgroups: "disabled")');
    }
    const verdict = verdicts.cgroups[controller];
    if (!verdict.ok) throw unsupported(LOCAL_PROVIDER, `resources.${field}`, verdict.reason);
  }
  return resources;
}

/**
 * Under `namespaceScope: "sandbox"`, starts the sandbox's namespaces, owned by
 * the sandbox's user `sandboxUser`, and returns their holder (`UNSUPPORTED` naming what failed); otherwise nothing.
 */
export async function startNamespaces(
  options: ResolvedLocalOptions,
  network: boolean,
  sandboxUser: SandboxUser | undefined,
  tag: string,
): Promise<NamespaceHolder | undefined> {
  const { namespaceScope, bwrapPath } = options;
  if (namespaceScope !== "sandbox" || !sandboxUser) return undefined;
  try {
    return await startNamespaceHolder({ bwrapPath, user: sandboxUser, network, tag });
  } catch (error) {
    throw new SandportError({
      code: "UNSUPPORTED",
      provider: LOCAL_PROVIDER,
      message:
        `namespaceScope "sandbox": could not make the sandbox's namespaces (${(error as Error).message}). ` +
        `It needs root, bubblewrap, ${NSENTER_PATH} and ${UNSHARE_PATH} (util-linux), and user namespaces for uid ${sandboxUser.uid}`,
      cause: error,
    });
  }
}

/** What {@link isolationRefusal} says about the failed bubblewrap probe. */
export interface IsolationFailure {
  /** Why bubblewrap failed, from the probe. */
  readonly reason: string;
  /** The sandbox root. */
  readonly root: string;
  /** The host user commands run as, when the runtime is root. */
  readonly sandboxUser: SandboxUser | undefined;
  /** Paths besides the root and `readOnlyPaths` that the probe needed readable (the port relay's Node). */
  readonly alsoReadable: readonly string[];
}

/** `UNSUPPORTED` for namespaces bubblewrap cannot create here, saying what to fix and pointing at the opt-in. */
export function isolationRefusal({ reason, root, sandboxUser, alsoReadable }: IsolationFailure): SandportError {
  const user = sandboxUser
    ? ` Commands run as uid ${sandboxUser.uid} (the runtime is root; see the sandboxUids and sandboxUser options), which needs ` +
      "unprivileged user namespaces and must be able to pass through every parent of each readOnlyPaths entry" +
      `${alsoReadable.length > 0 ? ` and of ${alsoReadable.join(", ")} (the port relay runs this Node)` : ""} ` +
      `(it reaches the root, ${root}, through a mount namespace of its own when it cannot pass through a parent).`
    : "";
  // A kernel without seccomp filters fails only the filter, which can be turned off on its own.
  const filter = /seccomp/i.test(reason)
    ? " If only the syscall filter fails, new LocalRuntime({ syscallFilter: false }) runs without it."
    : "";
  return unsupported(
    LOCAL_PROVIDER,
    'isolation "namespaces"',
    `bubblewrap cannot create namespaces here (${reason}).${user}${filter} Install bubblewrap and allow unprivileged ` +
      'user namespaces, or opt in to unisolated host processes with new LocalRuntime({ isolation: "none" })',
  );
}

/**
 * Creates a sandbox's egress directory (readable by the sandbox user) with the egress relay in it. With
 * `group` (the gid of a sandbox's own uid), only root and that group may enter it (`root:<gid>`, mode 0750):
 * the proxies' Unix sockets in it are open to anyone who reaches them.
 */
export async function prepareEgressDirectory(directory: string, group?: number): Promise<void> {
  await makeRelayDirectory(directory, group);
  await writeFile(join(directory, EGRESS_RELAY_FILE), EGRESS_RELAY_SOURCE, { mode: 0o644 });
}

/** Creates a sandbox's ports directory (read-only to commands) with the relay program in it; `group` as above. */
export async function preparePortsDirectory(directory: string, group?: number): Promise<void> {
  await makeRelayDirectory(directory, group);
  await writeFile(join(directory, RELAY_FILE), RELAY_SOURCE, { mode: 0o644 });
}

async function makeRelayDirectory(directory: string, group: number | undefined): Promise<void> {
  const mode = group === undefined ? 0o755 : 0o750;
  await mkdir(directory, { mode });
  if (group !== undefined) await chown(directory, 0, group);
  await chmod(directory, mode);
}
