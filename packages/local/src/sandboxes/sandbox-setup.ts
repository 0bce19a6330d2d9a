import { access, chmod, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type ResourceLimits, SandportError, unsupported, type ValidatedLaunchSpec } from "@sandport/core";
import { refuseUnenforceableNetwork } from "@sandport/core/adapter";
import { localCapabilities } from "../capabilities.js";
import { SETPRIV_PATH } from "../commands/command-plan.js";
import { EGRESS_RELAY_FILE, EGRESS_RELAY_SOURCE } from "../egress/egress-relay-source.js";
import { LOCAL_PROVIDER, type ResolvedLocalOptions, type SandboxUser } from "../options.js";
import { RELAY_FILE, RELAY_SOURCE } from "../ports/port-relay-source.js";
import {
  type NamespaceHolder,
  NSENTER_PATH,
  startNamespaceHolder,
  UNSHARE_PATH,
} from "../processes/sandbox-namespaces.js";

/**
 * Why the local runtime has no disk bound: a workspace is a host directory,
 * and every way to cap one needs what the runtime does not assume (a loop
 * device or size-limited mount: mount rights on the host; project quotas:
 * root and a filesystem mounted with them; a tmpfs in bubblewrap's `--size`:
 * gone when the command's namespace ends, and counted against memory).
 */
const LOCAL_DISK_REFUSAL =
  "a workspace is a host directory; bounding it needs a size-limited mount or filesystem quotas, " +
  "which need privileges this runtime does not assume";

/**
 * Refuses (`UNSUPPORTED`) a launch the runtime cannot honour with its
 * options: a template, `network: "none"` under `none`, a network policy
 * beyond the declared `networkPolicy`, resource limits without
 * cgroups or, as root, without `setpriv`. Returns the resource limits asked
 * for, if any.
 */
export async function checkLaunchable(
  spec: ValidatedLaunchSpec,
  options: ResolvedLocalOptions,
): Promise<ResourceLimits | undefined> {
  if (spec.template !== undefined) {
    throw unsupported(LOCAL_PROVIDER, "templates", "commands run on the host's /usr; launch without a template");
  }
  if (options.isolation === "none" && spec.network === "none") {
    throw unsupported(LOCAL_PROVIDER, 'network: "none"', 'isolation "none" cannot keep commands off the network');
  }
  refuseUnenforceableNetwork(spec.network, localCapabilities(options.isolation).modes.networkPolicy, LOCAL_PROVIDER);
  const resources = spec.resources && Object.keys(spec.resources).length > 0 ? spec.resources : undefined;
  if (resources?.diskMiB !== undefined) {
    throw unsupported(LOCAL_PROVIDER, "resources.diskMiB", LOCAL_DISK_REFUSAL);
  }
  if (resources && options.cgroups === "disabled") {
    throw unsupported(LOCAL_PROVIDER, "resources", 'cgroups are disabled in the options (cgroups: "disabled")');
  }
  if (
    resources &&
    options.sandboxUser &&
    !(await access(SETPRIV_PATH).then(
      () => true,
      () => false,
    ))
  ) {
    throw unsupported(
      LOCAL_PROVIDER,
      "resources",
      `as root, a command joins its cgroups and then switches to the sandbox user with ${SETPRIV_PATH} (util-linux), which is missing`,
    );
  }
  return resources;
}

/**
 * Under `namespaceScope: "sandbox"`, starts the sandbox's namespaces and
 * returns their holder (`UNSUPPORTED` naming what failed); otherwise nothing.
 */
export async function startNamespaces(
  options: ResolvedLocalOptions,
  network: boolean,
): Promise<NamespaceHolder | undefined> {
  const { namespaceScope, sandboxUser, bwrapPath } = options;
  if (namespaceScope !== "sandbox" || !sandboxUser) return undefined;
  try {
    return await startNamespaceHolder({ bwrapPath, user: sandboxUser, network });
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
    ? ` Commands run as uid ${sandboxUser.uid} (the runtime is root; see the sandboxUser option), which needs ` +
      "unprivileged user namespaces and must be able to pass through every parent of the root " +
      `(${root}) and of each readOnlyPaths entry${alsoReadable.length > 0 ? ` and of ${alsoReadable.join(", ")} (the port relay runs this Node)` : ""}.`
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

/** Creates a sandbox's egress directory (readable by the sandbox user) with the egress relay in it. */
export async function prepareEgressDirectory(directory: string): Promise<void> {
  await mkdir(directory, { mode: 0o755 });
  await chmod(directory, 0o755);
  await writeFile(join(directory, EGRESS_RELAY_FILE), EGRESS_RELAY_SOURCE, { mode: 0o644 });
}

/** Creates a sandbox's ports directory (read-only to commands) with the relay program in it. */
export async function preparePortsDirectory(directory: string): Promise<void> {
  await mkdir(directory, { mode: 0o755 });
  await chmod(directory, 0o755);
  await writeFile(join(directory, RELAY_FILE), RELAY_SOURCE, { mode: 0o644 });
}
