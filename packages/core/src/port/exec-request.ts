import { keyList } from "../validation/known-keys.js";

/** Fields shared by both forms of {@link ExecRequest}. */
export interface ExecOptions {
  /**
   * Working directory. A relative path is relative to the sandbox workspace;
   * an absolute one may name any directory of the sandbox (`/tmp`, `/`), not
   * only the workspace's. A `..` segment is refused (`INVALID_REQUEST`); a
   * directory that does not exist is `NOT_FOUND`, and the command does not
   * run. Default: the workspace root.
   */
  readonly cwd?: string;
  /**
   * Environment for this command, merged over the launch env. Names must match
   * `[A-Za-z_][A-Za-z0-9_]*`. Nothing from the host's environment is inherited.
   */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * Kill the command after this many milliseconds; the result then has
   * `timedOut: true` and `exitCode: null`. The kill reaches the command's whole
   * process tree and does not depend on the command's cooperation (SIGTERM is
   * followed by SIGKILL): nothing of it runs on once the result has arrived.
   * Default: the runtime's configured run budget. Always sent to the provider,
   * so a vendor's implicit default never applies.
   */
  readonly timeoutMs?: number;
  /**
   * Cap on stdout + stderr bytes kept. Past it the command is stopped, on every
   * way of running one (`exec`, `execStream`, `spawn`, `startCommand`), and the
   * result has `truncated: true`, `timedOut: false`, `exitCode: null`.
   * Default: the runtime's cap.
   */
  readonly maxOutputBytes?: number;
  /** Bytes written to the command's standard input, which is then closed. Default: empty stdin. */
  readonly stdin?: string | Uint8Array;
}

/** A command given as an argument vector. No shell is involved; each element reaches the program unchanged. */
export interface ArgvExecRequest extends ExecOptions {
  /** Program and arguments. `argv[0]` is looked up on the sandbox's `PATH`. */
  readonly argv: readonly string[];
  readonly shell?: never;
}

/** A command given as a POSIX shell script, run with `sh -c`. */
export interface ShellExecRequest extends ExecOptions {
  /** The script. The caller is responsible for quoting inside it. */
  readonly shell: string;
  readonly argv?: never;
}

/** One command to run: an argument vector or a shell script, plus {@link ExecOptions}. */
export type ExecRequest = ArgvExecRequest | ShellExecRequest;

/** Every key an {@link ExecRequest} may have; any other is refused with `INVALID_REQUEST`. */
export const EXEC_REQUEST_KEYS = keyList<ArgvExecRequest>({
  argv: true,
  shell: true,
  cwd: true,
  env: true,
  timeoutMs: true,
  maxOutputBytes: true,
  stdin: true,
});
