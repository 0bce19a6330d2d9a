import { randomBytes } from "node:crypto";
import { closeSync, existsSync, openSync, readdirSync, readSync } from "node:fs";

/**
 * The environment variable that marks every process of a command under
 * `isolation: "none"`: `SANDPORT_LOCAL_COMMAND_ID=<sandbox id>.<unique suffix>`. It is
 * the one variable Sandport adds there besides `PATH`, `HOME` and `TMPDIR`, and
 * a launch or request env that sets it is refused with `INVALID_REQUEST`.
 *
 * Children inherit it, so a process that left the command's process group
 * (`setsid`) and its cgroup can still be recognised, through
 * `/proc/<pid>/environ`, and killed with the command. A process that clears
 * its environment (`env -i`, or overwrites the memory it started with) or
 * becomes unreadable to us (another user, a set-uid program) is not
 * recognised.
 */
export const COMMAND_MARKER_VARIABLE = "SANDPORT_LOCAL_COMMAND_ID";

/** Which processes a scan looks at. */
export interface MarkerScope {
  /**
   * Only processes created after the process with this pid (pids are handed
   * out in increasing order, wrapping at `pid_max`). Set it only for a short
   * interval (see {@link WRAP_SAFE_MS}), in which the pid counter cannot have
   * gone all the way round. Absent: every process.
   */
  readonly after?: number;
  /** Match every marker that starts with the value (all commands of a sandbox), not just the exact value. */
  readonly prefix?: boolean;
}

/** An interval short enough that the kernel cannot have handed out every pid in it (at most 4 M of them). */
export const WRAP_SAFE_MS = 1_000;
/** Up to this many new pids are probed one by one; more, and `/proc` is listed instead. */
const PROBE_LIMIT = 64;
/** Bound on kill rounds (each catches what the previous round's victims forked meanwhile). */
const KILL_ROUNDS = 16;

let processToken: string | undefined;
let commandCounter = 0;

/**
 * A fresh marker value for one command of `sandboxId`: the sandbox id (so that
 * `destroy` can find every command of a sandbox by prefix), a random token
 * drawn once per process, and a counter. Costs no system call after the first.
 */
export function newCommandMarker(sandboxId: string): string {
  processToken ??= randomBytes(6).toString("hex");
  return `${sandboxPrefix(sandboxId)}${processToken}.${++commandCounter}`;
}

/** The part every marker of a sandbox's commands starts with. */
export function sandboxPrefix(sandboxId: string): string {
  return `${sandboxId}.`;
}

/** `undefined`: not opened yet; `null`: not available here. */
let lastPidDescriptor: number | null | undefined;
const lastPidBuffer = Buffer.alloc(32);

/**
 * The last pid the kernel handed out in our pid namespace
 * (`/proc/sys/kernel/ns_last_pid`, read through a descriptor kept open: about
 * 8 µs). When it still equals a command's pid, no process at all has been
 * created since the command's, so the command cannot have forked. `undefined`
 * where the file is not available (not Linux).
 */
export function lastAllocatedPid(): number | undefined {
  if (lastPidDescriptor === undefined) {
    try {
      lastPidDescriptor = openSync("/proc/sys/kernel/ns_last_pid", "r");
    } catch {
      lastPidDescriptor = null;
    }
  }
  if (lastPidDescriptor === null) return undefined;
  try {
    const length = readSync(lastPidDescriptor, lastPidBuffer, 0, lastPidBuffer.length, 0);
    const pid = Number.parseInt(lastPidBuffer.toString("latin1", 0, length), 10);
    return Number.isInteger(pid) ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Pids of live processes carrying the marker (see {@link MarkerScope}). Empty where there is no `/proc`. */
export function markedProcesses(marker: string, scope: MarkerScope = {}): number[] {
  const matcher = new Matcher(marker, scope.prefix === true);
  return candidates(scope.after, lastAllocatedPid()).filter((pid) => matcher.matches(pid));
}

/** Sends `signal` once to every process carrying the marker; returns their pids. */
export function signalMarked(marker: string, signal: NodeJS.Signals, scope: MarkerScope = {}): number[] {
  const pids = markedProcesses(marker, scope);
  for (const pid of pids) send(pid, signal);
  return pids;
}

/**
 * SIGKILLs every process carrying the marker, in rounds: each round also looks
 * at the processes created during the previous one (what a victim forked just
 * before it died), until a round finds nobody new and no process at all was
 * created meanwhile. Synchronous; returns the pids it signalled.
 */
export function killMarked(marker: string, scope: MarkerScope = {}): number[] {
  const matcher = new Matcher(marker, scope.prefix === true);
  const signalled = new Set<number>();
  let after = scope.after;
  for (let round = 0; round < KILL_ROUNDS; round++) {
    const last = lastAllocatedPid();
    let found = 0;
    for (const pid of candidates(after, last)) {
      if (signalled.has(pid) || !matcher.matches(pid)) continue;
      send(pid, "SIGKILL");
      signalled.add(pid);
      found++;
    }
    if (last === undefined) {
      if (found === 0) break;
      continue;
    }
    if (found === 0 && lastAllocatedPid() === last) break;
    after = last;
  }
  return [...signalled];
}

/**
 * Pids to look at: those handed out in `(after, last]` (cyclically), probed
 * one by one when there are few, else filtered from a listing of `/proc`.
 */
function candidates(after: number | undefined, last: number | undefined): number[] {
  if (after !== undefined && last !== undefined) {
    if (last === after) return [];
    if (last > after && last - after <= PROBE_LIMIT) {
      const pids: number[] = [];
      for (let pid = after + 1; pid <= last; pid++) if (existsSync(`/proc/${pid}`)) pids.push(pid);
      return pids;
    }
  }
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return [];
  }
  const pids: number[] = [];
  for (const name of names) {
    const first = name.charCodeAt(0);
    if (first < 48 || first > 57) continue;
    const pid = Number(name);
    if (after === undefined || last === undefined) pids.push(pid);
    else if (after < last ? pid > after && pid <= last : pid > after || pid <= last) pids.push(pid);
  }
  return pids;
}

/** Recognises `NAME=value` (or `NAME=value…` for a prefix) as one whole entry of a process's environment. */
class Matcher {
  readonly #needle: Buffer;
  readonly #exact: boolean;
  #buffer = Buffer.alloc(16_384);

  constructor(value: string, prefix: boolean) {
    this.#needle = Buffer.from(`${COMMAND_MARKER_VARIABLE}=${value}`);
    this.#exact = !prefix;
  }

  /** True when `pid`'s environment, as it started, holds the marker. A vanished or unreadable process does not. */
  matches(pid: number): boolean {
    const length = this.#read(pid);
    if (length === 0) return false;
    const environ = this.#buffer.subarray(0, length);
    for (let at = environ.indexOf(this.#needle); at >= 0; at = environ.indexOf(this.#needle, at + 1)) {
      const end = at + this.#needle.length;
      const starts = at === 0 || environ[at - 1] === 0;
      if (starts && (!this.#exact || end === length || environ[end] === 0)) return true;
    }
    return false;
  }

  /** Reads `/proc/<pid>/environ` whole into the buffer (grown as needed); 0 when unreadable or empty (a zombie). */
  #read(pid: number): number {
    let descriptor: number;
    try {
      descriptor = openSync(`/proc/${pid}/environ`, "r");
    } catch {
      return 0;
    }
    try {
      let length = 0;
      for (;;) {
        if (length === this.#buffer.length) {
          const grown = Buffer.alloc(this.#buffer.length * 2);
          this.#buffer.copy(grown);
          this.#buffer = grown;
        }
        const read = readSync(descriptor, this.#buffer, length, this.#buffer.length - length, length);
        if (read === 0) return length;
        length += read;
      }
    } catch {
      return 0;
    } finally {
      closeSync(descriptor);
    }
  }
}

function send(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // Gone already.
  }
}
