/**
 * Every pod has its own `/workspace`, and the adapter names it by that
 * absolute path (`cd -- /workspace`, `cat > /workspace/…`). A namespaced
 * backend gives each sandbox its own. A backend of host processes
 * (`isolation: "none"`, where bubblewrap is missing) would give them all
 * the host's one `/workspace`, shared by every pod, test file and run, so
 * there each command of a pod runs in a mount namespace of its own
 * (util-linux `unshare --mount`) where the pod's workspace directory is
 * bound at `/workspace`. Making mount namespaces and the `/workspace` mount
 * point takes root; without it the emulator refuses to start, saying why.
 *
 * @module
 */

import { mkdir } from "node:fs/promises";
import { posix } from "node:path";
import type { SandboxHandle } from "@sandport/core";
import { defaultBackendIsolation } from "../harness/backend.js";
import { SANDBOX_ROOT } from "./sandbox-paths.js";

/**
 * Why the Kubernetes emulator cannot give each pod its own `/workspace`
 * here, naming bubblewrap and namespaces; `undefined` when it can (a
 * namespaced default backend, or root to make mount namespaces). Tests of
 * the emulator's default backend skip with it.
 */
export async function kubernetesEmulatorSkipReason(): Promise<string | undefined> {
  const isolation = await defaultBackendIsolation();
  if (isolation.isolated && isolation.namespaceScope === "sandbox") return undefined;
  if (process.getuid?.() === 0) return undefined;
  const why = isolation.isolated ? "bubblewrap runs each command in namespaces of its own" : isolation.reason;
  return (
    "the Kubernetes emulator's pods each need their own /workspace: bubblewrap with namespaces shared by a " +
    `sandbox's commands, or a mount namespace per command, both of which need root (${why})`
  );
}

/** Makes the host's `/workspace` mount point (empty: nothing is ever written to it outside a pod's mount). */
export async function prepareWorkspaceMountPoint(): Promise<void> {
  await mkdir(SANDBOX_ROOT, { recursive: true });
}

// $1: the pod's workspace on the host; $2: the working directory inside; then the command.
const MOUNT_AND_RUN = 'mount --bind -- "$1" /workspace && cd -- "$2" && shift 2 && exec "$@"';

/**
 * The command `argv` of a pod whose workspace is the host directory
 * `workspace`, run in a mount namespace of its own where that directory is
 * `/workspace`, in `cwd` (sandboxd's: workspace-relative, or absolute
 * elsewhere; `undefined` for the workspace itself).
 */
export function inPodMount(workspace: string, cwd: string | undefined, argv: readonly string[]): string[] {
  const inside = cwd === undefined ? SANDBOX_ROOT : posix.resolve(SANDBOX_ROOT, cwd);
  return [
    "unshare",
    "--mount",
    "--propagation",
    "private",
    "--",
    "sh",
    "-c",
    MOUNT_AND_RUN,
    "sh",
    workspace,
    inside,
    ...argv,
  ];
}

/** The host directory of a backend sandbox's workspace (a `LocalRuntime` handle's `workspaceDirectory`). */
export function hostWorkspaceOf(handle: SandboxHandle): string {
  const directory = (handle as { readonly workspaceDirectory?: unknown }).workspaceDirectory;
  if (typeof directory !== "string") throw new Error("the default backend's handle names no workspaceDirectory");
  return directory;
}
