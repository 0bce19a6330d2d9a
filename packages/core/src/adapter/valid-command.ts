import { randomUUID } from "node:crypto";
import { EXEC_MARKER_ENV, RESERVED_ENV } from "../port/exec-markers.js";
import type { ExecRequest } from "../port/exec-request.js";
import { refuseReservedEnv } from "../validation/env.js";
import { type ValidatedExecRequest, validateExecRequest } from "../validation/requests.js";
import { resolveCwd } from "./command-cwd.js";

/** The options a command is planned from: the workspace and the defaults of a request. */
export interface CommandDefaultOptions {
  readonly workspaceRoot: string;
  readonly runBudgetMs: number;
  readonly maxOutputBytes: number;
}

/** A request checked, and what every adapter's command plan derives from it alike. */
export interface ValidCommand {
  /** The request, validated. */
  readonly valid: ValidatedExecRequest;
  /** Its working directory, absolute inside the sandbox (see `resolveCwd`): in the workspace or anywhere else. */
  readonly cwd: string;
  /** This command's `EXEC_MARKER_ENV` value (a fresh UUID): how a kill finds its descendants. */
  readonly marker: string;
  /** The request's env with `EXEC_MARKER_ENV` set to {@link marker}. */
  readonly env: Readonly<Record<string, string>>;
  /** Its run budget: the request's `timeoutMs`, else `runBudgetMs`. */
  readonly timeoutMs: number;
  /** Its output cap: the request's `maxOutputBytes`, else the runtime's. */
  readonly maxOutputBytes: number;
}

/** What a command plan carries from {@link validCommand}: extend it with the vendor's form of the command. */
export type PlannedCommand = Omit<ValidCommand, "valid">;

/**
 * The start of every adapter's command plan: the request validated against
 * the workspace, a reserved env name refused (`INVALID_REQUEST`, before any
 * request), the working directory made absolute (`resolveCwd`), a fresh kill marker in the
 * env, and the run budget and output cap with the runtime's defaults.
 */
export function validCommand(options: CommandDefaultOptions, request: ExecRequest, provider: string): ValidCommand {
  const valid = validateExecRequest(request, { root: options.workspaceRoot, provider });
  refuseReservedEnv(valid.env, RESERVED_ENV, "env", provider);
  const marker = randomUUID();
  return {
    valid,
    cwd: resolveCwd(valid.cwd, options.workspaceRoot),
    marker,
    env: { ...valid.env, [EXEC_MARKER_ENV]: marker },
    timeoutMs: valid.timeoutMs ?? options.runBudgetMs,
    maxOutputBytes: valid.maxOutputBytes ?? options.maxOutputBytes,
  };
}
