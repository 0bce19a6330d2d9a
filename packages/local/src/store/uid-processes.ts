import { readdir, readFile } from "node:fs/promises";
import { sleep } from "@sandport/core";
import { signalProcess } from "../processes/process-tree.js";

/** How long {@link killProcessesOfUid} keeps killing before it reports what is left. */
const KILL_WITHIN_MS = 2_000;

/**
 * Pids of the live processes (zombies left out) that run as `uid`, as the
 * host sees it: any of their real, effective, saved or file-system uids.
 */
export async function processesOfUid(uid: number): Promise<number[]> {
  const found: number[] = [];
  for (const name of await readdir("/proc").catch(() => [] as string[])) {
    if (!/^\d+$/.test(name)) continue;
    const status = await readFile(`/proc/${name}/status`, "utf8").catch(() => "");
    const uids = /^Uid:\s+(.*)$/m.exec(status)?.[1]?.trim().split(/\s+/).map(Number);
    if (/^State:\s+Z/m.test(status) || !uids?.includes(uid)) continue;
    found.push(Number(name));
  }
  return found;
}

/**
 * SIGKILLs every process running as `uid` until none is left, or
 * {@link KILL_WITHIN_MS} has passed: for a uid proven to belong to one
 * sandbox that will never run again (a launch killed after it took its uid),
 * where such a process is that launch's (the namespace holder of
 * `namespaceScope: "sandbox"`, started before the sandbox's record was
 * written). Resolves with the pids killed and those still alive.
 */
export async function killProcessesOfUid(uid: number): Promise<{ killed: number[]; alive: number[] }> {
  const killed = new Set<number>();
  const started = performance.now();
  for (;;) {
    const alive = await processesOfUid(uid);
    if (alive.length === 0 || performance.now() - started > KILL_WITHIN_MS) return { killed: [...killed], alive };
    for (const pid of alive) if (signalProcess(pid, "SIGKILL")) killed.add(pid);
    await sleep(20);
  }
}
