import type { CommandStatus } from "../port/command.js";
import type { ExecResult, ResourceLimitKind } from "../port/exec-result.js";
import type { OutputCollector } from "../streams/output-collector.js";
import { withLimit } from "./command-limit.js";

/** Exit code reported for an async command that vanished without an exit record (the port's rule). */
export const VANISHED_EXIT = 255;

/**
 * How a started async command ended, as the adapter read it (an exit record,
 * the vendor's command object): its exit code (`null` when killed), how long
 * it ran, whether its watchdog killed it at its run budget, and whether its
 * output cap stopped it (the cap mark of `asyncOutputCapScript`), and the
 * resource limit that stopped it where the vendor says so (`ExecResult.limit`).
 */
export interface AsyncCommandEnd {
  readonly exitCode: number | null;
  readonly durationMs: number;
  readonly timedOut: boolean;
  readonly capped?: boolean;
  readonly limit?: ResourceLimitKind;
}

/** The end of a command that left no record: exit 255, as `CommandStatus` says. */
export const VANISHED_END: AsyncCommandEnd = Object.freeze({ exitCode: VANISHED_EXIT, durationMs: 0, timedOut: false });

/**
 * `commandStatus` of every adapter, with the engine's rule: `running` with a
 * `null` code; `exited` with its code, `null` when the run budget or the
 * output cap stopped it, and `limit` as {@link withLimit} says.
 */
export function asyncCommandStatus(end: AsyncCommandEnd | "running"): CommandStatus {
  if (end === "running") return { state: "running", exitCode: null };
  const exitCode = end.timedOut || end.capped ? null : end.exitCode;
  return end.limit === undefined || exitCode === 0
    ? { state: "exited", exitCode }
    : { state: "exited", exitCode, limit: end.limit };
}

/**
 * `commandLogs` of every adapter from the output read so far (capped by the
 * collector, at the command's own cap): while running, `exitCode: null` and
 * the time it has run; once ended, the same rule as {@link asyncCommandStatus}.
 * Output past the cap (the collector's `truncated`) means the cap stopped it
 * (`exitCode: null`); `timedOut` is only for the run budget, and not when the
 * cap stopped the command first; `limit` as {@link withLimit} says.
 */
export function asyncCommandLogs(
  output: OutputCollector,
  end: AsyncCommandEnd | "running",
  runningForMs: number,
): ExecResult {
  if (end === "running") return output.result(null, Math.max(0, runningForMs));
  const timedOut = end.timedOut && end.capped !== true;
  const stopped = timedOut || end.capped === true || output.truncated;
  return withLimit(output.result(stopped ? null : end.exitCode, end.durationMs, timedOut), end.limit);
}
