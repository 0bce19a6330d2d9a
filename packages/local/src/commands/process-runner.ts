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
import { awaitPidNamespaceHandoff } from "./pid-namespace-handoff.js";
import { ROOT_BRIDGE_FAILED_MESSAGE } from "./root-bridge.js";
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

/**
 * How many times a command that joins its sandbox's PID namespace is started
 * when bubblewrap kills it before its launch gate opened (see
 * `awaitPidNamespaceHandoff`): nothing of the command ran then, so starting it
 * again is safe.
 */
const LAUNCH_ATTEMPTS = 4;
/** bubblewrap's exit status for a command killed by SIGKILL. */
const KILLED_EXIT = 128 + 9;
/** An attempt whose command bubblewrap killed before the launch gate opened. */
const LOST_BEFORE_START = Symbol("lost before start");

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
export async function runCommand(options: RunOptions): Promise<RunOutcome> {
  for (let attempt = 1; ; attempt++) {
    const outcome = await runOnce(options, attempt < LAUNCH_ATTEMPTS);
    if (outcome !== LOST_BEFORE_START) return outcome;
  }
}

/**
 * One start of the command. A command joining its sandbox's PID namespace is
 * let through its gate only once registered and handed to bubblewrap's outer
 * process (`awaitPidNamespaceHandoff`); its stdin and `onStarted` wait for
 * that too. When bubblewrap killed it before it answered that it passed the
 * gate (exit 137), the attempt resolves {@link LOST_BEFORE_START} if
 * `mayRetry`, with the leaf kept for the next one; otherwise it fails saying so.
 */
function runOnce(options: RunOptions, mayRetry: boolean): Promise<RunOutcome | typeof LOST_BEFORE_START> {
  const { plan } = options;
  return new Promise<RunOutcome | typeof LOST_BEFORE_START>((resolve, reject) => {
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
    const gate = (child.stdio as readonly unknown[])[GATE_DESCRIPTOR] as NodeJS.ReadWriteStream | null | undefined;
    let exited = false;
    const shared = plan.namespaces;
    // For a command joining the sandbox's PID namespace: what waits for its gate to open.
    const deferred: (() => void)[] = [];
    const whenOpen = (work: () => void) => (shared && plan.gate ? deferred.push(work) : work());
    // A command joining the sandbox's PID namespace answers on the gate once it passed it.
    let acknowledged = false;
    if (gate && plan.gate) {
      gate.on("error", () => {});
      if (shared) gate.on("data", () => (acknowledged = true));
      const handedOff =
        shared && pid !== undefined
          ? awaitPidNamespaceHandoff(pid, shared.holder.pidNamespace, () => exited)
          : Promise.resolve(true);
      // Only this process holds the pipe's other end: if it dies first, the gate reads end-of-file and the command never runs.
      void Promise.all([registered ?? true, handedOff]).then(([go, handed]) => {
        if (!go || !handed) return gate.end();
        gate.end(LAUNCH_GO);
        for (const work of deferred.splice(0)) work();
      });
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
    const stdin = child.stdin;
    const onStdin = options.onStdin;
    if (onStdin && stdin) {
      whenOpen(() => {
        if (options.stdin) stdin.write(options.stdin);
        onStdin(stdin);
      });
    } else {
      whenOpen(() => stdin?.end(options.stdin));
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
      exited = true;
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
      const lost = shared && plan.gate && !acknowledged && !stopping && !spawnError && code === KILLED_EXIT;
      if (lost && mayRetry) return resolve(LOST_BEFORE_START);
      // The leaf's cleanup runs in the background: it must not delay the result.
      void (tree ? tree.release() : plan.leaf ? releaseLeaf(plan.leaf).catch(() => {}) : undefined);
      if (lost)
        return reject(
          spawnFailed(plan, new Error(`bubblewrap killed the command before it started, ${LAUNCH_ATTEMPTS} times`)),
        );
      // What waited for the gate is owed to the caller all the same (the command ran nothing).
      for (const work of deferred.splice(0)) work();
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
      const failure = stderr.toString("utf8");
      if (
        exitCode === JOIN_FAILED_EXIT &&
        (failure.startsWith(JOIN_FAILED_MESSAGE) || failure.startsWith(ROOT_BRIDGE_FAILED_MESSAGE))
      ) {
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
    if (pid !== undefined) whenOpen(() => options.onStarted?.(plan.isolation === "none" ? pid : undefined));
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
