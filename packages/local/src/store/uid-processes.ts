import { sleep } from "@sandport/core";
import { eachProcessFile, signalProcess } from "../processes/process-tree.js";

/** How long {@link killProcessesOfUid} keeps killing before it reports what is left. */
const KILL_WITHIN_MS = 2_000;

/**
 * Pids of the live processes (zombies left out) that run as `uid`, as the
 * host sees it: any of their real, effective, saved or file-system uids.
 */
export async function processesOfUid(uid: number): Promise<number[]> {
  const found: number[] = [];
  for await (const { pid, text: status } of eachProcessFile("status", "utf8")) {
    const uids = /^Uid:\s+(.*)$/m.exec(status)?.[1]?.trim().split(/\s+/).map(Number);
    if (/^State:\s+Z/m.test(status) || !uids?.includes(uid)) continue;
    found.push(pid);
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
