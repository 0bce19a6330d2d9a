import { readFile, readlink } from "node:fs/promises";
import { sleep } from "@sandport/core";

/** How often {@link awaitPidNamespaceHandoff} looks again. */
const POLL_MS = 2;

/**
 * Why a command that joins its sandbox's PID namespace is let go only after
 * this resolves `true`.
 *
 * bubblewrap joins an existing PID namespace (`--pidns`) by forking once
 * more: the process it cloned enters the namespace, forks the process that
 * will become the command, and exits. That last process sets its
 * parent-death signal (`--die-with-parent`) near the end of its setup,
 * relative to whichever process is then its parent. When the intermediate
 * has not exited by then (it only has to call `exit`, but under load it can
 * wait tens of milliseconds for a CPU), its exit delivers SIGKILL to the
 * command: bubblewrap then reports 137 for a command that was killed by
 * nothing the caller did. The command is reparented to bubblewrap's outer
 * process (a child subreaper) only once the intermediate has exited, after
 * any parent-death signal was sent.
 *
 * So: resolves `true` once a child of `pid` (bubblewrap's outer process, the
 * spawned pid after `nsenter` `exec`s it) lives in `pidNamespace` (the
 * sandbox's, `pid:[inode]`): the command, reparented, alive, and from now on
 * dying only with bubblewrap. Resolves `false` once `ended()` is true (the
 * outer process exited: the command was killed before its launch gate
 * opened, or never got that far). Never rejects.
 */
export async function awaitPidNamespaceHandoff(
  pid: number,
  pidNamespace: string,
  ended: () => boolean,
): Promise<boolean> {
  for (;;) {
    if (ended()) return false;
    if (await hasChildIn(pid, pidNamespace)) return true;
    await sleep(POLL_MS);
  }
}

/** True when a live child of `pid` is in `pidNamespace` (a zombie's namespace links cannot be read). */
async function hasChildIn(pid: number, pidNamespace: string): Promise<boolean> {
  let children: string;
  try {
    children = await readFile(`/proc/${pid}/task/${pid}/children`, "utf8");
  } catch {
    return false;
  }
  for (const child of children.split(" ")) {
    if (child === "") continue;
    const namespace = await readlink(`/proc/${child}/ns/pid`).catch(() => undefined);
    if (namespace === pidNamespace) return true;
  }
  return false;
}
