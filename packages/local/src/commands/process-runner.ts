import { type ChildProcess, type StdioOptions, spawn } from "node:child_process";
import { type ResourceLimitKind, SandportError } from "@sandport/core";
import { missingCwd } from "@sandport/core/adapter";
import { releaseLeaf } from "../cgroups/cgroups.js";
import { LOCAL_PROVIDER } from "../options.js";
import { type OpenNamespaces, openNamespaces } from "../processes/sandbox-namespaces.js";
import { JOIN_FAILED_EXIT, JOIN_FAILED_MESSAGE, type SpawnPlan } from "./command-plan.js";
import { CommandTree } from "./command-tree.js";
import { coverInheritedDescriptors } from "./inherited-descriptors.js";
import { GATE_DESCRIPTOR, LAUNCH_GO } from "./launch-gate.js";
import { FILTER_DESCRIPTOR } from "./syscall-filter.js";

/** How to run one planned command. */
export interface RunOptions {
  readonly plan: SpawnPlan;
  /** Bytes for standard input, which is then closed (unless `onStdin` keeps it open). Absent: stdin is `/dev/null`. */
  readonly stdin?: Uint8Array;
  /**
   * Keeps stdin open and hands it over (after writing `stdin`, if given): the
   * caller writes and ends it. For interactive processes.
   */
  readonly onStdin?: (stdin: NodeJS.WritableStream) => void;
  /** Run budget; past it the tree is killed and the outcome says `timedOut`. */
  readonly timeoutMs: number;
  /** Cap on stdout + stderr bytes; past it the tree is killed and the outcome says `truncated`. */
  readonly maxOutputBytes: number;
  /** Milliseconds between SIGTERM and SIGKILL. */
  readonly killGraceMs: number;
  /** Aborting kills the tree; the outcome then reports the kill. */
  readonly signal: AbortSignal;
  /** Called once the process exists. `pid` is the host pid, given only when it is also the command's own pid. */
  readonly onStarted?: (pid: number | undefined) => void;
  /**
   * Called right after spawning, with the host pid that leads the command's
   * process group. A gated command (`plan.gate`) is let go once what it
   * returns settles `true` (it registered the command); `false`: never, the
   * command then exits without running anything.
   */
  readonly onSpawned?: (pid: number) => Promise<boolean> | undefined;
  /** Called for each chunk kept (output past the cap is never passed on). */
  readonly onOutput?: (stream: "stdout" | "stderr", chunk: Buffer) => void;
}

/** What happened to a command. */
export interface RunOutcome {
  /** Exit status, or `null` when a signal ended it. */
  readonly exitCode: number | null;
  readonly stdout: Buffer;
  readonly stderr: Buffer;
  readonly truncated: boolean;
  readonly timedOut: boolean;
  readonly durationMs: number;
  /**
   * A resource limit the sandbox's cgroups enforced while the command ran,
   * whatever its end (set by `CommandRuns`; the result reports it only for a
   * command that did not succeed).
   */
  readonly limit?: ResourceLimitKind;
}

/** How long output may still arrive after the command exited, before the pipes are closed on our side. */
const DRAIN_AFTER_EXIT_MS = 500;

const EXECVP_FAILURE = /^bwrap: execvp ([^\n]*): (No such file or directory|Permission denied)\n?$/;
/** The launch gate's `exec` (dash) of a program that is not there: exit 127 and only this on stderr. */
const GATE_EXEC_MISSING = /^sh: \d+: exec: ([^\n]*): not found\n?$/;
/** What bubblewrap prints when the working directory it was given is missing inside (it then runs nothing). */
const CHDIR_FAILURE = /^bwrap: Can't chdir to ([^\n]*): (No such file or directory|Not a directory)\n?$/;

/**
 * Spawns a planned command in its own process group and collects its output.
 *
 * Stopping (timeout, output cap, abort) sends SIGTERM to everything that
 * belongs to the command (see `CommandTree`: its process group, its cgroup
 * leaf, and under `none` every process carrying its `SANDPORT_LOCAL_COMMAND_ID`,
 * which catches processes that called `setsid` or double-forked), then SIGKILL
 * after the grace period. Under `namespaces` the command's PID namespace dies
 * with bubblewrap, taking every descendant with it. When the command exits by
 * itself, anything it left running is killed too: a command leaves nothing
 * behind.
 *
 * A program that cannot be found or executed yields exit status 127 or 126, as
 * a shell would, in both isolation modes. Under `namespaces`, a working
 * directory that bubblewrap cannot enter (missing inside the sandbox) rejects
 * with `NOT_FOUND` naming it (`missingCwd`), as a missing workspace directory
 * does before anything is spawned.
 */
export function runCommand(options: RunOptions): Promise<RunOutcome> {
  const { plan } = options;
  return new Promise<RunOutcome>((resolve, reject) => {
    const started = performance.now();
    const stdio: StdioOptions & unknown[] = [options.stdin || options.onStdin ? "pipe" : "ignore", "pipe", "pipe"];
    if (plan.fd3) stdio.push("pipe");
    const chunks = { stdout: [] as Buffer[], stderr: [] as Buffer[] };
    let kept = 0;
    let truncated = false;
    let timedOut = false;
    let spawnError: NodeJS.ErrnoException | undefined;
    let killTimer: NodeJS.Timeout | undefined;
    let drainTimer: NodeJS.Timeout | undefined;
    let stopping = false;

    let child: ChildProcess;
    let namespaces: OpenNamespaces | undefined;
    try {
      const shared = plan.namespaces;
      if (shared) {
        // Opened last thing before `spawn` (a holder that is gone is a typed error), closed right after it.
        namespaces = openNamespaces(shared.sandboxId, shared.holder, shared.network);
        stdio.push(...namespaces.descriptors);
      }
      if (plan.gate) {
        while (stdio.length < GATE_DESCRIPTOR) stdio.push("ignore");
        stdio.push("pipe");
      }
      if (plan.filter) {
        while (stdio.length < FILTER_DESCRIPTOR) stdio.push("ignore");
        stdio.push("pipe");
      }
      child = spawn(plan.file, plan.args, {
        cwd: plan.cwd,
        env: plan.env,
        stdio: coverInheritedDescriptors(stdio),
        detached: true,
        ...(plan.user ? { uid: plan.user.uid, gid: plan.user.gid } : {}),
      });
    } catch (error) {
      void (plan.leaf ? releaseLeaf(plan.leaf) : Promise.resolve());
      reject(error);
      return;
    } finally {
      namespaces?.close();
    }
    const pid = child.pid;
    const tree = pid === undefined ? undefined : new CommandTree(plan, pid);
    // First thing after `spawn` returns: the command may already be running (see `CommandTree`).
    tree?.join();
    const registered = pid === undefined ? undefined : options.onSpawned?.(pid);
    const gate = (child.stdio as readonly unknown[])[GATE_DESCRIPTOR] as NodeJS.WritableStream | null | undefined;
    if (gate && plan.gate) {
      gate.on("error", () => {});
      // Only this process holds the pipe's other end: if it dies first, the gate reads end-of-file and the command never runs.
      void Promise.resolve(registered ?? true).then((go) => (go ? gate.end(LAUNCH_GO) : gate.end()));
    }

    const stop = () => {
      if (stopping || !tree) return;
      stopping = true;
      tree.terminate();
      killTimer = setTimeout(() => tree.kill(), options.killGraceMs);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, options.timeoutMs);
    const onAbort = () => stop();
    options.signal.addEventListener("abort", onAbort, { once: true });
    if (options.signal.aborted) stop();

    const collect = (stream: "stdout" | "stderr") => (chunk: Buffer) => {
      if (truncated) return;
      const room = options.maxOutputBytes - kept;
      const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
      if (part.length > 0) {
        kept += part.length;
        chunks[stream].push(part);
        options.onOutput?.(stream, part);
      }
      if (chunk.length > room) {
        truncated = true;
        stop();
      }
    };
    child.stdout?.on("data", collect("stdout"));
    child.stderr?.on("data", collect("stderr"));
    // The program may exit without reading its input: a broken pipe there is not a failure.
    child.stdin?.on("error", () => {});
    if (options.onStdin && child.stdin) {
      if (options.stdin) child.stdin.write(options.stdin);
      options.onStdin(child.stdin);
    } else {
      child.stdin?.end(options.stdin);
    }
    const fd3 = child.stdio[3] as NodeJS.WritableStream | null | undefined;
    if (fd3 && plan.fd3) {
      fd3.on("error", () => {});
      fd3.end(plan.fd3);
    }
    const descriptors = child.stdio as readonly unknown[];
    const filter = descriptors[FILTER_DESCRIPTOR] as NodeJS.WritableStream | null | undefined;
    if (filter && plan.filter) {
      filter.on("error", () => {});
      filter.end(plan.filter);
    }

    child.on("error", (error) => {
      spawnError = error;
    });
    child.on("exit", () => {
      // Whatever the command left running dies with it.
      tree?.reap(stopping);
      // A process that escaped (under `none`: left group and leaf and cleared its environment) may
      // hold the pipes open for ever: read what is buffered, then stop listening.
      drainTimer = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
      }, DRAIN_AFTER_EXIT_MS);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      clearTimeout(killTimer);
      clearTimeout(drainTimer);
      options.signal.removeEventListener("abort", onAbort);
      // The leaf's cleanup runs in the background: it must not delay the result.
      void (tree ? tree.release() : plan.leaf ? releaseLeaf(plan.leaf).catch(() => {}) : undefined);
      const joinError = tree?.joinError;
      const stdout = Buffer.concat(chunks.stdout);
      const stderr = Buffer.concat(chunks.stderr);
      const durationMs = performance.now() - started;
      if (spawnError) {
        // Under `none` the program is spawned directly, so a missing one is the caller's; under
        // `namespaces` the spawned program is bubblewrap (or /bin/sh), and its absence is ours.
        const status = plan.isolation === "none" ? spawnFailureStatus(spawnError) : undefined;
        if (status === undefined) return reject(spawnFailed(plan, spawnError));
        const message = Buffer.from(`sandport: ${plan.file}: ${spawnError.message}\n`);
        return resolve({ exitCode: status, stdout, stderr: message, truncated, timedOut, durationMs });
      }
      if (joinError) return reject(spawnFailed(plan, new Error(`${JOIN_FAILED_MESSAGE}: ${joinError.message}`)));
      // A command we stopped (timeout, cap, abort) reports no status, even if it exited in a handler.
      let exitCode = signal || stopping ? null : code;
      if (exitCode === JOIN_FAILED_EXIT && stderr.toString("utf8").startsWith(JOIN_FAILED_MESSAGE)) {
        return reject(spawnFailed(plan, new Error(stderr.toString("utf8").trim())));
      }
      if (plan.isolation === "namespaces" && exitCode === 127 && stdout.length === 0) {
        // Behind the launch gate the program is exec'd by `sh`, which reports a missing one itself.
        const missing = GATE_EXEC_MISSING.exec(stderr.toString("utf8"));
        if (missing) {
          const hint = Buffer.from(notVisible(missing[1] as string));
          return resolve({ exitCode: 127, stdout, stderr: hint, truncated, timedOut, durationMs });
        }
      }
      if (plan.isolation === "namespaces" && exitCode === 1 && stdout.length === 0) {
        const missing = CHDIR_FAILURE.exec(stderr.toString("utf8"));
        if (missing) return reject(missingCwd(LOCAL_PROVIDER, missing[1] as string, { reason: missing[2] }));
        const failure = EXECVP_FAILURE.exec(stderr.toString("utf8"));
        if (failure?.[2] === "Permission denied") exitCode = 126;
        else if (failure) {
          // Most often a program installed outside what the sandbox sees: say so, and how to mount it.
          const hint = Buffer.from(notVisible(failure[1] as string));
          return resolve({ exitCode: 127, stdout, stderr: hint, truncated, timedOut, durationMs });
        }
      }
      resolve({ exitCode, stdout, stderr, truncated, timedOut, durationMs });
    });
    // Without namespaces the host pid is the command's own (a join step `exec`s it in place).
    if (pid !== undefined) options.onStarted?.(plan.isolation === "none" ? pid : undefined);
  });
}

/** The stderr of a command whose program was not found inside an isolated sandbox. */
export function notVisible(program: string): string {
  return (
    `sandport: ${program}: not found inside the sandbox. Under isolation "namespaces" a command sees only /usr, ` +
    "a few /etc entries, its workspace and the runtime's readOnlyPaths; to run a program installed elsewhere, " +
    `mount its directory read-only: new LocalRuntime({ readOnlyPaths: ["/opt/tool"] })\n`
  );
}

function spawnFailureStatus(error: NodeJS.ErrnoException): number | undefined {
  if (error.code === "ENOENT") return 127;
  if (error.code === "EACCES") return 126;
  return undefined;
}

function spawnFailed(plan: SpawnPlan, cause: Error): SandportError {
  return new SandportError({
    code: "UNEXPECTED",
    provider: LOCAL_PROVIDER,
    message: `could not start ${plan.file}: ${cause.message}`,
    cause,
  });
}
