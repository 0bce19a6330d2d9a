import type { ResourceLimitKind } from "./exec-result.js";

/** Identifies a command started with `startCommand`. Plain data; survives a process restart. */
export interface CommandRef {
  /** The caller's idempotency key: starting again with the same id returns the same command. */
  readonly sessionId: string;
  /** Provider-assigned command identifier (a pid, a command id). */
  readonly commandId: string;
}

/** Where a started command is. */
export interface CommandStatus {
  /** `running` while the command may still produce output; `exited` once it never will. */
  readonly state: "running" | "exited";
  /**
   * Exit status once `exited`; `null` while running, or when the runtime
   * stopped the command (its timeout or output cap: `commandLogs` says which,
   * as `ExecResult.exitCode`). A command that vanished without an exit record
   * reports `255`.
   */
  readonly exitCode: number | null;
  /**
   * The sandbox resource limit the command was stopped at, once `exited`, by
   * the rule of `ExecResult.limit` (the same value `commandLogs` reports):
   * only on the runtime's own evidence, and never for a command that exited 0.
   * Absent where no limit was hit or the runtime cannot tell.
   */
  readonly limit?: ResourceLimitKind;
}
