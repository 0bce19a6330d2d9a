import { SandportError } from "../errors/sandport-error.js";
import type { ExecEvent } from "../port/exec-event.js";
import type { ExecResult, ResourceLimitKind } from "../port/exec-result.js";
import { ByteOutputCollector } from "../streams/byte-output-collector.js";
import { OutputCollector, type OutputStream } from "../streams/output-collector.js";
import { withLimit } from "./command-limit.js";

/**
 * Why the engine stopped a command before it ended by itself: its run budget
 * passed (`timeout`), its output passed the cap (`output-limit`), the caller's
 * signal fired (`aborted`), `kill()` was called (`killed`), or its output
 * stream broke while it ran (`lost`). The one stop-reason type of every adapter.
 */
export type StopReason = "timeout" | "output-limit" | "aborted" | "killed" | "lost";

/** How long a kill may take to be sent (and, after a stop, the process to end) before the engine gives up on it. */
export const KILL_DEADLINE_MS = 10_000;

/** Output cap of an adapter's own helper scripts (symlink guard, chmod, session scripts): they print little. */
export const SCRIPT_OUTPUT_BYTES = 1024 * 1024;

/**
 * How close to its timeout a command the vendor ended (with no exit code, or
 * a signal's) must have run for that end to count as the vendor's timeout
 * (`timed-out`) rather than a kill.
 */
export const VENDOR_TIMEOUT_SLACK_MS = 50;

/** True when a command that ran `durationMs` has reached its `timeoutMs`, within {@link VENDOR_TIMEOUT_SLACK_MS}. */
export function ranOutOfTime(durationMs: number, timeoutMs: number): boolean {
  return durationMs >= timeoutMs - VENDOR_TIMEOUT_SLACK_MS;
}

/**
 * How a vendor process ended, as the adapter reads it from its SDK. `limit` is
 * set only where the vendor itself says a sandbox resource limit stopped the
 * command (its OOM report, a process-limit error): never from the exit code
 * alone. See `ExecResult.limit`.
 */
export type VendorEnd =
  /** It exited by itself with this code (or the vendor reports one after a kill; a stop still wins). */
  | { readonly kind: "exited"; readonly exitCode: number; readonly limit?: ResourceLimitKind }
  /** The vendor ended it for its own timeout (the run budget the adapter sent it). */
  | { readonly kind: "timed-out" }
  /** It was killed (by a signal, or the vendor reports no code): `exitCode: null`. */
  | { readonly kind: "killed"; readonly limit?: ResourceLimitKind }
  /** Its output stream broke: it may still run and what it did is unknown. */
  | { readonly kind: "lost"; readonly error: unknown };

/** A vendor process the engine drives, once started. */
export interface VendorProcess {
  /** The vendor's process id, in the `started` event. */
  readonly pid: number | string;
  /** Settles once the process ended; a rejection counts as `lost`. */
  readonly ended: Promise<VendorEnd>;
}

/** What one adapter does to run one command: the small interface the engine drives. */
export interface VendorCommand {
  /**
   * Output is raw bytes (`ByteOutputCollector`): `output` takes `Uint8Array`
   * chunks and the events carry them exactly (a vendor whose `binaryOutput`
   * is `true`). Default: text, each chunk a string.
   */
  readonly rawOutput?: boolean;
  /**
   * Starts the process and resolves once it runs. Output goes to `output` as
   * text (bytes with {@link rawOutput}), in order (before or after this
   * resolves). `signal` cancels the start.
   */
  start(output: (stream: OutputStream, data: string | Uint8Array) => void, signal: AbortSignal): Promise<VendorProcess>;
  /**
   * Kills the process and its descendants (`markerSweepScript`); `process`
   * is `undefined` after a start that was cancelled midway (it may have
   * started anyway). Rejects when the kill could not be sent; `signal` fires
   * at {@link KILL_DEADLINE_MS}.
   */
  kill(process: VendorProcess | undefined, signal: AbortSignal): Promise<void>;
}

/** What {@link startCommandRun} needs besides the vendor command. */
export interface CommandRunOptions {
  /** Provider name, in errors. */
  readonly provider: string;
  /** The run budget in ms: past it the engine kills the command (`timedOut: true`, `exitCode: null`). */
  readonly timeoutMs: number;
  /** The output cap in bytes (stdout + stderr): past it the output is cut and the command killed. */
  readonly maxOutputBytes: number;
  /**
   * Cancels the start; while the command runs, aborting it kills the command
   * and `finished` rejects with the signal's reason (`exec`: the call's signal;
   * `spawn`: one that bounds only the start).
   */
  readonly signal: AbortSignal;
  /** Receives `started` first, then the kept output chunks as they happen. */
  readonly emit?: (event: ExecEvent) => void;
  /** The error `finished` rejects with when the output stream broke (`lostOutput` is the default). */
  readonly lostOutput?: (error: unknown, pid: number | string) => SandportError;
  /** Override of {@link KILL_DEADLINE_MS}. */
  readonly killDeadlineMs?: number;
}

/** A command started by {@link startCommandRun}. */
export interface CommandRun {
  /** The vendor's process id. */
  readonly pid: number | string;
  /**
   * The result once the command ended (see {@link commandResult}). Rejects
   * with the signal's reason when it was aborted, with `lostOutput` when its
   * stream broke, and with {@link killUnconfirmed} when, after a stop, it
   * did not end within the kill deadline.
   */
  readonly finished: Promise<ExecResult>;
  /** Why the engine stopped it, once it did. */
  readonly stopReason: StopReason | undefined;
  /**
   * Kills the command and its descendants (once; later calls share the first).
   * Resolves once the kill was sent; rejects `DEADLINE_EXCEEDED` when it could
   * not be sent within the kill deadline, or with the vendor's failure.
   */
  kill(): Promise<void>;
}

/**
 * The one rule for a finished command's result fields: `exitCode` is the
 * vendor's code only when the process exited by itself and the engine never
 * stopped it (any stop, a vendor timeout or a kill: `null`); `timedOut` only
 * when the run budget ended it; `truncated` when output passed the cap;
 * `durationMs` from the start request to the end seen; `limit` when the
 * vendor's end names one and the command did not succeed ({@link withLimit}).
 */
export function commandResult(
  output: Pick<OutputCollector, "result">,
  end: VendorEnd | undefined,
  stopReason: StopReason | undefined,
  durationMs: number,
): ExecResult {
  const timedOut = stopReason === "timeout" || (stopReason === undefined && end?.kind === "timed-out");
  const exitCode = stopReason === undefined && end?.kind === "exited" ? end.exitCode : null;
  const limit = end?.kind === "exited" || end?.kind === "killed" ? end.limit : undefined;
  return withLimit(output.result(exitCode, Math.max(0, Math.round(durationMs)), timedOut), limit);
}

/** The default error of a command whose output stream broke: it was stopped, and what it did is unknown. */
export function lostOutput(provider: string, error: unknown, pid: number | string): SandportError {
  return new SandportError({
    code: "PROVIDER_UNAVAILABLE",
    provider,
    retryable: false,
    cause: error,
    message: `${provider} lost the output of a running command (it was stopped; its effects are unknown)`,
    details: { pid, outcomeUnknown: true },
  });
}

/** A kill that could not be sent, or a stopped command that did not end, within the kill deadline. */
export function killUnconfirmed(
  provider: string,
  pid: number | string | undefined,
  deadlineMs: number = KILL_DEADLINE_MS,
  cause?: unknown,
): SandportError {
  return new SandportError({
    code: "DEADLINE_EXCEEDED",
    provider,
    retryable: true,
    message: `${provider} could not confirm the kill of a command within ${deadlineMs} ms; it may still run`,
    details: { ...(pid === undefined ? {} : { pid }), outcomeUnknown: true },
    ...(cause === undefined ? {} : { cause }),
  });
}

/**
 * Starts a command through `vendor` and resolves once it runs: the engine of
 * `exec`, `execStream`, `spawn` and an adapter's own scripts. It holds the run
 * budget's timer, the output cap (the chunk past it is cut, the command
 * killed), the stop reason, the kill (once, bounded by the kill deadline;
 * descendants are the vendor's `kill`), and reads the end with
 * {@link commandResult}. Output arriving before the start resolves is held,
 * so `started` is always the first event.
 */
export async function startCommandRun(vendor: VendorCommand, options: CommandRunOptions): Promise<CommandRun> {
  const { provider, signal, emit } = options;
  const killDeadlineMs = options.killDeadlineMs ?? KILL_DEADLINE_MS;
  const startedAt = performance.now();
  let stopReason: StopReason | undefined;
  let process: VendorProcess | undefined;
  let killing: Promise<void> | undefined;
  const sendKill = (): Promise<void> => {
    killing ??= (async () => {
      // A timer of our own, not AbortSignal.timeout: that one's timer is unref'd, so a vendor kill that
      // never settles would let the event loop end with the kill still pending instead of rejecting.
      const deadline = new AbortController();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timedOut = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          deadline.abort(new DOMException("the kill deadline passed", "TimeoutError"));
          reject(killUnconfirmed(provider, process?.pid, killDeadlineMs));
        }, killDeadlineMs);
      });
      timedOut.catch(() => {});
      try {
        await Promise.race([vendor.kill(process, deadline.signal), timedOut]);
      } finally {
        clearTimeout(timer);
      }
    })();
    return killing;
  };
  // After a stop the process must end within the kill deadline, else the result says it may still run.
  let unconfirmed: ReturnType<typeof setTimeout> | undefined;
  let armWatchdog: () => void = () => {};
  const watchdog = new Promise<never>((_, reject) => {
    armWatchdog = () => {
      unconfirmed ??= setTimeout(() => reject(killUnconfirmed(provider, process?.pid, killDeadlineMs)), killDeadlineMs);
    };
  });
  watchdog.catch(() => {});
  const stop = (reason: StopReason): Promise<void> => {
    stopReason ??= reason;
    if (!process) return Promise.resolve();
    armWatchdog();
    return sendKill();
  };
  let early: ExecEvent[] | undefined = [];
  const deliver = (event: ExecEvent) => {
    if (early) early.push(event);
    else emit?.(event);
  };
  const output = collectOutput(vendor.rawOutput === true, options.maxOutputBytes, deliver, () => {
    void stop("output-limit").catch(() => {});
  });
  try {
    process = await vendor.start(output.push, signal);
  } catch (error) {
    // A start cut off midway may have started the command: sweep for it.
    if (signal.aborted) void sendKill().catch(() => {});
    throw error;
  }
  const running = process;
  emit?.(typeof running.pid === "number" ? { type: "started", pid: running.pid } : { type: "started" });
  for (const event of early) emit?.(event);
  early = undefined;
  if (output.collector.truncated || stopReason !== undefined) {
    armWatchdog();
    void sendKill().catch(() => {});
  }
  const budget = setTimeout(() => void stop("timeout").catch(() => {}), options.timeoutMs);
  const ended = running.ended.catch((error: unknown): VendorEnd => ({ kind: "lost", error }));
  let onAbort: () => void = () => {};
  const aborted = new Promise<"aborted">((resolve) => {
    onAbort = () => resolve("aborted");
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  const settle = async (): Promise<ExecResult> => {
    try {
      const first = await Promise.race([ended, aborted]);
      if (first === "aborted") {
        // The caller is told at once it was aborted (after the kill was sent), not after a watchdog.
        stopReason ??= "aborted";
        await sendKill().catch(() => {});
        throw signal.reason;
      }
      if (first.kind === "lost" && stopReason === undefined) {
        stopReason = "lost";
        await sendKill().catch(() => {});
        throw (options.lostOutput ?? ((error, pid) => lostOutput(provider, error, pid)))(first.error, running.pid);
      }
      return commandResult(output.collector, first, stopReason, performance.now() - startedAt);
    } finally {
      clearTimeout(budget);
    }
  };
  const bounded = async (): Promise<ExecResult> => {
    try {
      return await Promise.race([settle(), watchdog]);
    } finally {
      clearTimeout(unconfirmed);
      clearTimeout(budget);
      signal.removeEventListener("abort", onAbort);
    }
  };
  const finished = bounded();
  // A caller that only kills must not see an unhandled rejection; `finished` still rejects for those who wait.
  finished.catch(() => {});
  return {
    pid: running.pid,
    finished,
    get stopReason() {
      return stopReason;
    },
    kill: () => stop("killed"),
  };
}

/** Where the engine keeps a command's output: the collector (cap, result) and how a vendor's chunk reaches it. */
interface CommandOutput {
  readonly collector: Pick<OutputCollector, "result" | "truncated">;
  readonly push: (stream: OutputStream, data: string | Uint8Array) => void;
}

/** Text chunks in an `OutputCollector` (bytes decoded), or raw bytes kept exactly in a `ByteOutputCollector`. */
function collectOutput(
  raw: boolean,
  maxBytes: number,
  deliver: (event: ExecEvent) => void,
  onOverflow: () => void,
): CommandOutput {
  const encoder = new TextEncoder();
  if (raw) {
    const bytes = new ByteOutputCollector(maxBytes, deliver, onOverflow);
    return {
      collector: bytes,
      push: (stream, data) => bytes.push(stream, typeof data === "string" ? encoder.encode(data) : data),
    };
  }
  const decoder = new TextDecoder();
  const text = new OutputCollector(
    maxBytes,
    (type, data) => deliver({ type, data, bytes: encoder.encode(data) }),
    onOverflow,
  );
  return {
    collector: text,
    push: (stream, data) => text.push(stream, typeof data === "string" ? data : decoder.decode(data)),
  };
}

/** {@link startCommandRun}, then its result: non-zero exits, timeouts and the output cap are results. */
export async function runCommandToEnd(vendor: VendorCommand, options: CommandRunOptions): Promise<ExecResult> {
  return (await startCommandRun(vendor, options)).finished;
}
