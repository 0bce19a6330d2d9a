/**
 * `core.exec.request` as agentd reads it, the failures it reports before a
 * command runs (`core.exec.failed`), and the backend request a valid one
 * becomes: argv as sent, the guest working directory mapped onto the
 * workspace, the sandbox's create-time environment under the request's own.
 *
 * @module
 */

import { type ArgvExecRequest, MAX_OUTPUT_BYTES, SandportError } from "@sandport/core";
import type { MicrosandboxContext, MicrosandboxSandbox } from "./context.js";
import { notEmulated } from "./interactive.js";
import { GuestPathError, toWorkspaceRelative } from "./paths.js";

/** A command with no deadline of its own still needs one for the port: a day. */
export const UNBOUNDED_MS = 24 * 60 * 60 * 1000;

/** agentd's `ExecFailed.kind`. */
type ExecFailureKind =
  | "not_found"
  | "permission_denied"
  | "bad_cwd"
  | "bad_args"
  | "resource_limit"
  | "user_setup_failed"
  | "pty_setup_failed"
  | "other";

const ERRNO: Readonly<Record<string, number>> = { ENOENT: 2, EINVAL: 22, EPERM: 1 };

/** A command that never ran, as agentd reports it. */
export class ExecFailure extends Error {
  readonly kind: ExecFailureKind;
  readonly errnoName: string | null;
  readonly stage: string | null;

  constructor(kind: ExecFailureKind, message: string, errnoName: string | null = null, stage: string | null = null) {
    super(message);
    this.kind = kind;
    this.errnoName = errnoName;
    this.stage = stage;
  }

  /** The `core.exec.failed` payload. */
  payload() {
    return {
      kind: this.kind,
      errno: this.errnoName === null ? null : (ERRNO[this.errnoName] ?? null),
      errno_name: this.errnoName,
      message: this.message,
      stage: this.stage,
    };
  }
}

/** `core.exec.request`, as the SDK sends it. */
interface ExecRequestPayload {
  readonly cmd: string;
  readonly args: readonly string[];
  readonly env: readonly string[];
  readonly cwd: string | null;
  readonly user: string | null;
  readonly tty: boolean;
  readonly rlimits: readonly unknown[];
}

/** A validated request: what to run on the backend, and its working directory as the guest names it. */
export interface PreparedExec {
  readonly request: ArgvExecRequest;
  readonly guestCwd: string;
}

/** Validate a request and map it onto the backend. Throws {@link ExecFailure}. */
export function prepareExec(
  context: MicrosandboxContext,
  sandbox: MicrosandboxSandbox,
  payload: unknown,
): PreparedExec {
  const request = readRequest(payload);
  if (request.tty) {
    notEmulated(context, "core.exec.request tty");
    throw new ExecFailure("pty_setup_failed", "PTY sessions are not emulated", null, "posix_openpt");
  }
  if (request.user !== null) {
    notEmulated(context, "core.exec.request user");
    throw new ExecFailure("user_setup_failed", `running as user ${request.user} is not emulated`, "EPERM", "setuid");
  }
  if (request.rlimits.length > 0) {
    notEmulated(context, "core.exec.request rlimits");
    throw new ExecFailure("resource_limit", "per-command rlimits are not emulated", "EINVAL", "setrlimit");
  }
  const env: Record<string, string> = {};
  for (const { key, value } of sandbox.data.spec.env) env[key] = value;
  for (const entry of request.env) {
    const separator = entry.indexOf("=");
    if (separator <= 0) throw new ExecFailure("bad_args", `malformed environment entry ${JSON.stringify(entry)}`);
    env[entry.slice(0, separator)] = entry.slice(separator + 1);
  }
  const guestCwd = request.cwd ?? sandbox.data.spec.workdir ?? "/";
  let cwd: string;
  try {
    cwd = toWorkspaceRelative(guestCwd);
  } catch (error) {
    if (error instanceof GuestPathError) throw new ExecFailure("bad_cwd", error.message, "EINVAL", "chdir");
    throw error;
  }
  return {
    guestCwd,
    request: {
      argv: [request.cmd, ...request.args],
      env,
      ...(cwd === "" ? {} : { cwd }),
      timeoutMs: UNBOUNDED_MS,
      maxOutputBytes: MAX_OUTPUT_BYTES,
    },
  };
}

function readRequest(payload: unknown): ExecRequestPayload {
  const raw = (typeof payload === "object" && payload !== null ? payload : {}) as Record<string, unknown>;
  const strings = (value: unknown) => Array.isArray(value) && value.every((entry) => typeof entry === "string");
  if (typeof raw.cmd !== "string" || raw.cmd === "") throw new ExecFailure("bad_args", "cmd is required");
  if (raw.args !== undefined && !strings(raw.args)) throw new ExecFailure("bad_args", "args must be strings");
  if (raw.env !== undefined && !strings(raw.env)) throw new ExecFailure("bad_args", "env must be KEY=VALUE strings");
  return {
    cmd: raw.cmd,
    args: (raw.args as string[] | undefined) ?? [],
    env: (raw.env as string[] | undefined) ?? [],
    cwd: typeof raw.cwd === "string" ? raw.cwd : null,
    user: typeof raw.user === "string" ? raw.user : null,
    tty: raw.tty === true,
    rlimits: Array.isArray(raw.rlimits) ? raw.rlimits : [],
  };
}

/** A backend failure to start a command, as the `ExecFailed` agentd would send. */
export function toFailure(error: unknown, guestCwd: string): ExecFailure {
  if (error instanceof ExecFailure) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (SandportError.hasCode(error, "NOT_FOUND")) {
    // The port reports a missing working directory as NOT_FOUND before anything runs.
    return new ExecFailure("bad_cwd", `chdir ${guestCwd}: No such file or directory (os error 2)`, "ENOENT", "chdir");
  }
  if (SandportError.hasCode(error, "INVALID_REQUEST")) return new ExecFailure("bad_args", message, "EINVAL", "execvp");
  return new ExecFailure("other", message);
}
