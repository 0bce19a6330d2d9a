import { readdirSync, readFileSync } from "node:fs";
import { sleep } from "@sandport/core";

/**
 * Pids of the live bubblewrap processes of one sandbox: those whose command
 * line starts with `bwrapPath` and binds `workspaceDirectory` (`--bind <it>
 * …`), which every command of the sandbox's has, outer process and its PID
 * namespace's init alike. A scan of `/proc`; empty where there is none.
 */
export function sandboxBubblewraps(bwrapPath: string, workspaceDirectory: string): number[] {
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    let args: string[];
    try {
      args = readFileSync(`/proc/${name}/cmdline`, "utf8").split("\u0000");
    } catch {
      continue;
    }
    if (args[0] !== bwrapPath) continue;
    for (let at = args.indexOf("--bind"); at >= 0; at = args.indexOf("--bind", at + 1)) {
      if (args[at + 1] === workspaceDirectory) {
        found.push(Number(name));
        break;
      }
    }
  }
  return found;
}

/**
 * For `destroy`: SIGKILLs every bubblewrap process of the sandbox (see
 * {@link sandboxBubblewraps}), in rounds, until a scan finds none (`true`) or
 * `timeoutMs` passes (`false`). Catches a command whose runtime process died
 * and whose marker no longer names a live process: bubblewrap sets
 * `--die-with-parent` in its outer process and its PID namespace's init
 * separately, so the outer one can die with the runtime and leave the init,
 * reparented, with the command below it. Killing the init ends the command's
 * whole PID namespace.
 */
export async function killSandboxBubblewraps(
  bwrapPath: string,
  workspaceDirectory: string,
  timeoutMs: number,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const pids = sandboxBubblewraps(bwrapPath, workspaceDirectory);
    if (pids.length === 0) return true;
    if (Date.now() > deadline) return false;
    for (const pid of pids) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Gone already.
      }
    }
    await sleep(10);
  }
}
