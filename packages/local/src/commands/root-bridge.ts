import { UNSHARE_PATH } from "../processes/sandbox-namespaces.js";

/**
 * A sandbox root under a parent the sandbox user cannot pass through (a
 * `mkdtemp` directory, mode 0700): `cover` is the outermost such parent, and
 * `directory` what a command must reach under it.
 */
export interface RootBridge {
  /** What the command reaches: its sandbox's own directory (the root itself for the probe). */
  readonly directory: string;
  /** The outermost parent of the root the sandbox user cannot pass through. */
  readonly cover: string;
}

/** Where `setpriv` (util-linux) is expected: it drops root to the sandbox user after a step that needs root. */
export const SETPRIV_PATH = "/usr/bin/setpriv";

/** The `setpriv` prefix that runs the rest of a command line as `user`, with no supplementary groups. */
export function dropTo(user: { readonly uid: number; readonly gid: number }): string[] {
  return [SETPRIV_PATH, `--reuid=${user.uid}`, `--regid=${user.gid}`, "--clear-groups", "--"];
}

/** What a bridge that could not be built prints (exit status 125); the runner turns it into an error. */
export const ROOT_BRIDGE_FAILED_MESSAGE = "sandport: could not bridge the sandbox root for the sandbox user";

/**
 * The program and arguments that run `command` (a `setpriv` or `nsenter`
 * that becomes the sandbox user, then bubblewrap) in a mount namespace of
 * its own (private: the host's mounts are unchanged), where the root's paths
 * lead the sandbox user through: as root, `unshare --mount` then `/bin/sh`
 * mounts a tmpfs (mode 0711) over `cover`, recreates the path down to
 * `directory` in it, and binds the real `directory` there (with the mounts
 * below it, such as a workspace disk), reached through the shell's working
 * directory (so no path through `cover` is needed once it is hidden). Every
 * host path under `directory` stays the same, so bubblewrap binds it as
 * before; everything else under `cover` (other sandboxes among it) is hidden. Before
 * the bridge, `joins` (the cgroup `cgroup.procs` files) get the shell's pid,
 * as `joinThenExec` does: the pid stays the spawned one through every `exec`.
 */
export function bridgedSpawn(
  bridge: RootBridge,
  joins: readonly string[],
  joinFailed: string,
  joinFailedExit: number,
  command: readonly string[],
): { file: string; args: string[] } {
  const writes = joins.map((_, index) => `echo $$ > "$${index + 1}"`).join(" && ");
  const join =
    joins.length === 0
      ? ""
      : `{ ${writes}; } || { echo "${joinFailed}" >&2; exit ${joinFailedExit}; }; shift ${joins.length}; `;
  const script =
    `${join}PATH=/usr/sbin:/usr/bin:/sbin:/bin; umask 022; ` +
    'cd -- "$1" && mount -t tmpfs -o mode=0711,size=64k sandport-root "$2" && mkdir -p -- "$1" && ' +
    'mount --no-canonicalize --rbind . "$1" && cd / || ' +
    `{ echo "${ROOT_BRIDGE_FAILED_MESSAGE}" >&2; exit ${joinFailedExit}; }; shift 2; exec "$@"`;
  return {
    file: UNSHARE_PATH,
    args: ["--mount", "--", "/bin/sh", "-c", script, "sh", ...joins, bridge.directory, bridge.cover, ...command],
  };
}
