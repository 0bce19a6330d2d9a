import type { CommandStatus } from "../port/command.js";
import type { ExecResult } from "../port/exec-result.js";
import type { OutputCollector } from "../streams/output-collector.js";

/** Exit code reported for an async command that vanished without an exit record (the port's rule). */
export const VANISHED_EXIT = 255;

/**
 * How a started async command ended, as the adapter read it (an exit record,
 * the vendor's command object): its exit code (`null` when killed), how long
 * it ran, and whether its watchdog killed it at its run budget.
 */
export interface AsyncCommandEnd {
  readonly exitCode: number | null;
  readonly durationMs: number;
  readonly timedOut: boolean;
}

/** The end of a command that left no record: exit 255, as `CommandStatus` says. */
export const VANISHED_END: AsyncCommandEnd = Object.freeze({ exitCode: VANISHED_EXIT, durationMs: 0, timedOut: false });

/**
 * `commandStatus` of every adapter, with the engine's rule: `running` with a
 * `null` code; `exited` with its code, `null` when the run budget killed it.
 */
export function asyncCommandStatus(end: AsyncCommandEnd | "running"): CommandStatus {
  if (end === "running") return { state: "running", exitCode: null };
  return { state: "exited", exitCode: end.timedOut ? null : end.exitCode };
}

/**
 * `commandLogs` of every adapter from the output read so far (capped by the
 * collector): while running, `exitCode: null` and the time it has run; once
 * ended, the same rule as {@link asyncCommandStatus}, with `timedOut` only for the run budget.
 */
export function asyncCommandLogs(
  output: OutputCollector,
  end: AsyncCommandEnd | "running",
  runningForMs: number,
): ExecResult {
  if (end === "running") return output.result(null, Math.max(0, runningForMs));
  return output.result(end.timedOut ? null : end.exitCode, end.durationMs, end.timedOut);
}
