/**
 * One process in an emulated pod, run for real on the backend: without a
 * terminal through `spawn` (stdout and stderr apart, stdin open), in its own
 * process group so a signal reaches the group, as sandboxd starts its
 * children (`Setpgid`); with a terminal through `openTerminal` (merged
 * output, resize). Used by sandboxd's process service and by pod exec.
 * What a command leaves running (a `setsid` child, a job of its own) runs
 * on after it, until the pod goes, as an orphan does in a container.
 *
 * @module
 */

import { randomBytes } from "node:crypto";
import type { SandboxProcess, Terminal } from "@sandport/core";
import { markerSweepScript } from "@sandport/core/adapter";
import { ExitLineScanner } from "./exit-line.js";
import type { PodProcess, PodRuntime } from "./pod-runtime.js";
import { inPodMount } from "./pod-workspace.js";

/** What a process reports, in order: output chunks, then one exit. */
export type ProcessEvent =
  | { readonly type: "stdout" | "stderr"; readonly bytes: Uint8Array }
  | { readonly type: "exit"; readonly exitCode: number; readonly signaled: boolean };

/**
 * Hears a process's events. A reader that cannot take more yet (its stream's buffer is full) returns a promise
 * that settles once it can: the process's output is read no further until then, so a reader that stops reading
 * holds the process's output back in the backend, as a full pipe blocks its writer, instead of buffering it.
 */
export type ProcessListener = (event: ProcessEvent) => void | Promise<void>;

/** The signals sandboxd delivers. */
export type ProcessSignal = "SIGINT" | "SIGTERM" | "SIGKILL";

/** What to start. */
export interface ProcessSpec {
  /** argv, no shell. */
  readonly command: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** Workspace-relative or absolute working directory on the backend. */
  readonly cwd?: string;
  /** Start on a terminal of this size. */
  readonly pty?: { readonly cols: number; readonly rows: number };
}

// A day: a pod's process runs until it ends or is signalled, as under sandboxd (no deadline of its own).
const UNBOUNDED_MS = 24 * 60 * 60 * 1000;
/**
 * What the backend keeps of one process's output. The kubelet caps none; this bounds the test machine's memory,
 * above what a read of a 64 MiB file prints in base64 (about 86 MiB).
 */
const OUTPUT_CAP_BYTES = 256 * 1024 * 1024;
/** Carried by a command and everything it starts, so the wrapper sees what the command left running. */
const LEFT_BEHIND_ENV = "SANDPORT_EMULATED_POD_PROCESS";
/** Starts the wrapper's exit line: then the tag, `:`, the exit code and a newline. */
const EXIT_LINE = "@@sandport-emulated-exit@@";

// bash with job control puts the command in a process group of its own and
// writes that group's id where a signal can find it; `set +m` after the
// launch keeps bash from printing job notices on stderr.
// Its first stdout line says whether the command exists (`N`) or is being
// started (`S`), so a missing program fails the start as sandboxd's does
// (exec.ErrNotFound → NOT_FOUND) instead of becoming exit 127.
// Once the command exits, the wrapper writes its exit line (the tag, then the
// code) on stdout and on stderr, and stays while a process the command left
// runs (one carrying the tag in its environment): the backend ends what a
// command leaves behind when the command ends, while in a pod a process that
// detached itself (its own session or process group) lives on until the pod goes.
const GROUP_WRAPPER = [
  "pidfile=$1; tag=$2; shift 2",
  'command -v "$1" >/dev/null 2>&1 || { printf "N\\n"; exit 127; }',
  'printf "S\\n"',
  `set -m; ${LEFT_BEHIND_ENV}=$tag "$@" & child=$!; set +m`,
  'echo "$child" > "$pidfile"',
  'wait "$child"; code=$?; rm -f "$pidfile"',
  `printf '${EXIT_LINE}%s:%s\\n' "$tag" "$code"; printf '${EXIT_LINE}%s:%s\\n' "$tag" "$code" >&2`,
  "exec </dev/null >/dev/null 2>&1",
  `while grep -qszx -- "${LEFT_BEHIND_ENV}=$tag" /proc/[0-9]*/environ; do sleep 0.2; done`,
  'exit "$code"',
].join("\n");

/** The program of a command was not found (sandboxd: NOT_FOUND). */
export class CommandNotFoundError extends Error {}

/** A process started in a pod. */
export class PodProcessHandle implements PodProcess {
  readonly #pod: PodRuntime;
  readonly #events: ProcessEvent[] = [];
  readonly #listeners = new Set<ProcessListener>();
  /** What full readers returned (see {@link ProcessListener}): no more output is read until each settles. */
  #waiting: Promise<void>[] = [];
  readonly #pidFile: string;
  #spawned: SandboxProcess | undefined;
  #terminal: Terminal | undefined;
  #signaled = false;
  #exited = false;
  /** Settles once the command exited (its exit event was sent). */
  readonly done: Promise<void>;
  #resolveDone: () => void = () => {};
  /** Settles once nothing of it runs: the command and what it left running. */
  readonly #gone: Promise<void>;
  #resolveGone: () => void = () => {};
  /** Marks the command and its descendants (see `LEFT_BEHIND_ENV`) and its exit line. */
  readonly #tag = randomBytes(16).toString("hex");

  private constructor(pod: PodRuntime) {
    this.#pod = pod;
    this.#pidFile = `/tmp/.emulated-sandboxd-${randomBytes(8).toString("hex")}.pgid`;
    this.done = new Promise((resolve) => {
      this.#resolveDone = resolve;
    });
    this.#gone = new Promise((resolve) => {
      this.#resolveGone = resolve;
    });
  }

  /** Start a process; rejects when the backend cannot start it or the pod is not running. */
  static async start(pod: PodRuntime, spec: ProcessSpec): Promise<PodProcessHandle> {
    const process = new PodProcessHandle(pod);
    if (!pod.track(process)) throw new Error("the pod is not running");
    try {
      await process.#launch(spec);
    } catch (error) {
      pod.untrack(process);
      throw error;
    }
    return process;
  }

  /** True when it runs on a terminal. */
  get hasTerminal(): boolean {
    return this.#terminal !== undefined;
  }

  /** True once it exited. */
  get exited(): boolean {
    return this.#exited;
  }

  /** Hear every event so far and from now on. Returns the way to stop listening. */
  subscribe(listener: ProcessListener): () => void {
    for (const event of this.#events) listener(event);
    if (!this.#exited) this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Bytes to its stdin. */
  async write(bytes: Uint8Array): Promise<void> {
    if (this.#terminal) await this.#terminal.write(bytes);
    else await this.#spawned?.write(bytes);
  }

  /** End its stdin (on a terminal: the EOF character). */
  async closeStdin(): Promise<void> {
    if (this.#terminal) await this.#terminal.write(new Uint8Array([4]));
    else await this.#spawned?.closeStdin();
  }

  /** New terminal size; false without a terminal. */
  async resize(cols: number, rows: number): Promise<boolean> {
    if (!this.#terminal) return false;
    await this.#terminal.resize(cols, rows);
    return true;
  }

  /** Deliver a signal to its process group. */
  async signal(signal: ProcessSignal): Promise<void> {
    if (this.#exited) return;
    this.#signaled = true;
    if (this.#terminal) {
      await this.#terminal.kill(signal);
      return;
    }
    const name = signal.slice(3);
    // The group id appears once bash has forked the command: wait for the file, then signal the group.
    const script = `for i in $(seq 200); do [ -s "$1" ] && break; sleep 0.01; done; [ -s "$1" ] || exit 0; kill -s ${name} -- "-$(cat "$1")" 2>/dev/null; exit 0`;
    await this.#pod.runtime.exec(this.#pod.handle, {
      argv: ["sh", "-c", script, "sh", this.#pidFile],
      timeoutMs: 30_000,
    });
  }

  /**
   * Its caller is gone (a cancelled Start stream, a closed exec socket): the
   * command's group is killed; what the command detached from it runs on.
   */
  async cancel(): Promise<void> {
    await this.signal("SIGKILL").catch(() => {});
    await this.done;
  }

  /** The pod goes away: kill the group, then the wrapper and everything the command left running. */
  async stop(): Promise<void> {
    if (!this.#exited) await this.signal("SIGKILL").catch(() => {});
    if (this.#spawned) {
      // What the command left carries its tag: killed by one sweep, the wrapper ends at its next look.
      await this.#pod.runtime
        .exec(this.#pod.handle, { shell: markerSweepScript(LEFT_BEHIND_ENV, this.#tag), timeoutMs: 30_000 })
        .catch(() => {});
    }
    await this.#gone;
  }

  async #launch(spec: ProcessSpec): Promise<void> {
    const runtime = this.#pod.runtime;
    const base = {
      env: { ...this.#pod.env, ...spec.env },
      ...(spec.cwd === undefined ? {} : { cwd: spec.cwd }),
      timeoutMs: UNBOUNDED_MS,
      maxOutputBytes: OUTPUT_CAP_BYTES,
    };
    const { hostWorkspace } = this.#pod;
    const inPod = (argv: readonly string[]) =>
      hostWorkspace === undefined ? [...argv] : inPodMount(hostWorkspace, spec.cwd, argv);
    if (spec.pty !== undefined) {
      if (!runtime.openTerminal) throw new Error("the backend runtime has no terminals");
      const terminal = await runtime.openTerminal(this.#pod.handle, {
        argv: inPod(spec.command),
        ...base,
        cols: spec.pty.cols,
        rows: spec.pty.rows,
      });
      this.#terminal = terminal;
      void this.#pump(async () => {
        for await (const event of terminal.events) {
          await this.#readersReady();
          if (event.type === "output") this.#emit({ type: "stdout", bytes: event.bytes });
          else
            return { exitCode: event.signal === null ? (event.exitCode ?? -1) : -1, signaled: event.signal !== null };
        }
        return { exitCode: -1, signaled: false };
      });
      return;
    }
    if (!runtime.spawn) throw new Error("the backend runtime cannot spawn processes");
    const spawned = await runtime.spawn(this.#pod.handle, {
      argv: inPod(["bash", "-c", GROUP_WRAPPER, "bash", this.#pidFile, this.#tag, ...spec.command]),
      ...base,
    });
    this.#spawned = spawned;
    let settle: (error?: Error) => void = () => {};
    const started = new Promise<void>((resolve, reject) => {
      settle = (error) => (error ? reject(error) : resolve());
    });
    void this.#follow(spawned, spec, settle);
    await started;
  }

  /**
   * Reads the wrapper's output: its first line (`S` or `N`), the command's
   * output, the exit line on each stream (the command's end), then nothing
   * until the wrapper itself ends, once what the command left running is gone.
   */
  async #follow(spawned: SandboxProcess, spec: ProcessSpec, settle: (error?: Error) => void): Promise<void> {
    const exitPrefix = `${EXIT_LINE}${this.#tag}:`;
    const streams = { stdout: new ExitLineScanner(exitPrefix), stderr: new ExitLineScanner(exitPrefix) };
    let header: Buffer | undefined = Buffer.alloc(0);
    let wrapperCode = -1;
    /** How the wrapper ended, and its first stderr bytes: said when it ends before starting the command. */
    let wrapperEnd = "its events ended without an exit";
    let wrapperStderr = "";
    const pass = (type: "stdout" | "stderr", bytes: Uint8Array) => {
      const kept = streams[type].feed(bytes);
      if (kept.length > 0 && !this.#exited) this.#emit({ type, bytes: kept });
      const { stdout, stderr } = streams;
      if (stdout.exitCode !== undefined && stderr.exitCode !== undefined) this.#finish(stdout.exitCode, false);
    };
    try {
      for await (const event of spawned.events) {
        await this.#readersReady();
        if (event.type === "stdout" && header !== undefined) {
          // The wrapper's first line is its own; what follows is the command's.
          header = Buffer.concat([header, event.bytes]);
          const end = header.indexOf(10);
          if (end === -1) continue;
          const verdict = header.subarray(0, end).toString();
          const rest = header.subarray(end + 1);
          header = undefined;
          if (verdict !== "S")
            settle(new CommandNotFoundError(`${spec.command[0]}: executable file not found in $PATH`));
          else settle();
          pass("stdout", rest);
          continue;
        }
        if (event.type === "stderr" && header !== undefined && wrapperStderr.length < 500)
          wrapperStderr += Buffer.from(event.bytes).toString("utf8");
        if (event.type === "stdout" || event.type === "stderr") pass(event.type, event.bytes);
        if (event.type === "exited") {
          wrapperCode = event.result.exitCode ?? -1;
          wrapperEnd = `exit code ${event.result.exitCode}, timed out ${event.result.timedOut}, truncated ${event.result.truncated}`;
        }
      }
    } catch (error) {
      // The backend lost the wrapper: the command's end is what was read.
      wrapperEnd = `the backend lost it: ${error instanceof Error ? error.message : String(error)}`;
    }
    if (header !== undefined) {
      settle(
        new Error(
          `the process ended before it started (its wrapper: ${wrapperEnd}; stderr: ${JSON.stringify(wrapperStderr.slice(0, 500))})`,
        ),
      );
    }
    if (!this.#exited) {
      for (const type of ["stdout", "stderr"] as const) {
        const rest = streams[type].flush();
        if (rest.length > 0) this.#emit({ type, bytes: rest });
      }
      this.#finish(streams.stdout.exitCode ?? streams.stderr.exitCode ?? wrapperCode, false);
    }
    this.#pod.untrack(this);
    this.#resolveGone();
  }

  async #pump(follow: () => Promise<{ exitCode: number; signaled: boolean }>): Promise<void> {
    let outcome: { exitCode: number; signaled: boolean };
    try {
      outcome = await follow();
    } catch {
      outcome = { exitCode: -1, signaled: false };
    }
    this.#finish(outcome.exitCode, outcome.signaled);
    this.#pod.untrack(this);
    this.#resolveGone();
  }

  /** The command ended: its exit event, once. */
  #finish(exitCode: number, signaled: boolean): void {
    if (this.#exited) return;
    // bash reports a child ended by signal N as 128+N; sandboxd (Go's ExitCode) reports -1.
    const bySignal = signaled || (this.#signaled && exitCode > 128 && exitCode <= 128 + 64);
    this.#exited = true;
    this.#emit({ type: "exit", exitCode: bySignal ? -1 : exitCode, signaled: bySignal });
    this.#listeners.clear();
    this.#resolveDone();
  }

  #emit(event: ProcessEvent): void {
    this.#events.push(event);
    for (const listener of [...this.#listeners]) {
      const wait = listener(event);
      if (wait) this.#waiting.push(wait);
    }
  }

  /** Settles once every reader that was full has drained: the output is read on only then, as a pipe blocks its writer. */
  async #readersReady(): Promise<void> {
    while (this.#waiting.length > 0) {
      const waiting = this.#waiting.splice(0);
      await Promise.all(waiting.map((wait) => wait.catch(() => {})));
    }
  }
}
