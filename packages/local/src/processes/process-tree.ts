import { readdirSync, readFileSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";

/** A process recorded so it can be found again later, safe against pid reuse. */
export interface ProcessIdentity {
  readonly pid: number;
  /** Start time in clock ticks since boot (`/proc/<pid>/stat` field 22); tells a reused pid apart. */
  readonly startTime: string;
}

/** Sends `signal` to a whole process group. A group that no longer exists is not an error. */
export function signalGroup(processGroup: number, signal: NodeJS.Signals): void {
  send(-processGroup, signal);
}

/** Sends `signal` to one process: `false` when it no longer exists, which is not an error. */
export function signalProcess(pid: number, signal: NodeJS.Signals): boolean {
  return send(pid, signal);
}

/**
 * `process.kill`, with ESRCH (the target is gone: `false`) ignored. The error for a vanished target is built
 * without a stack trace: every command's exit signals its (usually empty)
 * process group, and capturing a stack costs several times the system call.
 */
function send(target: number, signal: NodeJS.Signals): boolean {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return process.kill(target, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
    return false;
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** The identity of a live process, or `undefined` when it is gone (or this is not Linux). */
export function identify(pid: number): ProcessIdentity | undefined {
  try {
    return startTimeOf(pid, readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return undefined;
  }
}

/** The identity in a `/proc/<pid>/stat` text. */
function startTimeOf(pid: number, stat: string): ProcessIdentity | undefined {
  // The command name (field 2) may contain spaces and parentheses: count fields after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const startTime = fields[19];
  return startTime === undefined ? undefined : { pid, startTime };
}

/** {@link identify}, off the event loop: for a record written beside a command's start. */
export async function identifyLater(pid: number): Promise<ProcessIdentity | undefined> {
  try {
    return startTimeOf(pid, await readFile(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return undefined;
  }
}

/** True while the recorded process still runs (same pid, same start time) and is not a zombie. */
export function isAlive(identity: ProcessIdentity): boolean {
  try {
    const stat = readFileSync(`/proc/${identity.pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return fields[19] === identity.startTime && fields[0] !== "Z";
  } catch {
    return false;
  }
}

/**
 * Each process's `/proc/<pid>/<file>` as it reads now, in `/proc`'s order;
 * a process that exits meanwhile, or whose file this process may not read,
 * is passed by.
 */
export async function* eachProcessFile(
  file: "status" | "environ",
  encoding: BufferEncoding,
): AsyncGenerator<{ readonly pid: number; readonly text: string }> {
  for (const name of await readdir("/proc").catch(() => [] as string[])) {
    if (!/^\d+$/.test(name)) continue;
    const text = await readFile(`/proc/${name}/${file}`, encoding).catch(() => undefined);
    if (text !== undefined) yield { pid: Number(name), text };
  }
}

/**
 * The identities of the live descendants of `pid` (children, their children…), as a scan of
 * `/proc` finds them now. A command under bubblewrap runs in a pid namespace and a session of
 * its own, below the leader a marker names: killing the leader's group takes the namespace
 * down, but its processes die a moment later, so whoever must prove them dead waits on these.
 */
export function descendants(pid: number): ProcessIdentity[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const siblings = children.get(parent);
      if (siblings) siblings.push(Number(name));
      else children.set(parent, [Number(name)]);
    } catch {
      // Exited while we looked.
    }
  }
  const found: ProcessIdentity[] = [];
  const queue = [...(children.get(pid) ?? [])];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    const identity = identify(next);
    if (identity) found.push(identity);
    queue.push(...(children.get(next) ?? []));
  }
  return found;
}
