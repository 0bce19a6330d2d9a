/**
 * `POST /v5/vms/{id}/exec-await`: `{ command, env, stdin, timeoutMs,
 * linuxUser }` runs `command` through the shell (`sh -c` on the backend) and
 * answers `{ stdout, stderr, statusCode }` once it ends; `statusCode` is
 * `null` when the timeout (default 30 s, at most 24 h) killed it. There is no
 * cwd: a command starts in the workspace directory. A paused or stopped VM is
 * started first, as an exec wakes a real one.
 *
 * @module
 */

import type { ExecRequest } from "@sandport/core";
import type { EmulatorServer } from "../harness/http-server.js";
import { ApiError, badRequest, jsonReply, vmNotFound } from "./api.js";
import type { FreestyleContext, FreestyleVm } from "./context.js";
import { fromBackendError } from "./errors.js";
import { addApiRoute, vmOf } from "./routes.js";

const DEFAULT_TIMEOUT_MS = 30_000;
const MAX_TIMEOUT_MS = 86_400_000;
const MAX_STDIN_BYTES = 1024 * 1024;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** Slack on the backend call's deadline beyond the command's own timeout. */
const DEADLINE_SLACK_MS = 60_000;

/** A checked exec request. */
export interface ExecAwaitRequest {
  readonly command: string;
  readonly env: Record<string, string> | undefined;
  readonly stdin: Uint8Array | undefined;
  readonly timeoutMs: number;
}

/** What an exec answers. */
export interface ExecAwaitResult {
  readonly stdout: string;
  readonly stderr: string;
  readonly statusCode: number | null;
}

/** Register the exec route. */
export function registerExecRoute(server: EmulatorServer, context: FreestyleContext): void {
  addApiRoute(server, context, "POST", "/v5/vms/:id/exec-await", async (call) => {
    const vm = vmOf(call, context);
    const request = parseExecAwait(call.json(), context.linuxUser);
    context.startVm(vm);
    return jsonReply(200, await runExecAwait(context, vm, request, call.signal));
  });
}

/** Check an exec body. Throws `ApiError`. */
export function parseExecAwait(body: Record<string, unknown>, linuxUser: string): ExecAwaitRequest {
  const { command, env, stdin, timeoutMs } = body;
  if (typeof command !== "string" || command.trim() === "") throw badRequest("command must be a non-empty string");
  if (body.linuxUser !== undefined && body.linuxUser !== null && body.linuxUser !== linuxUser) {
    throw new ApiError(404, "USER_NOT_FOUND", `User not found: ${String(body.linuxUser)}`);
  }
  return {
    command,
    env: parseEnv(env),
    stdin: parseStdin(stdin),
    timeoutMs: parseTimeout(timeoutMs),
  };
}

/** Run a checked exec on the VM's backend sandbox. */
export async function runExecAwait(
  context: FreestyleContext,
  vm: FreestyleVm,
  request: ExecAwaitRequest,
  signal: AbortSignal,
  cwd?: string,
): Promise<ExecAwaitResult> {
  const execRequest: ExecRequest = {
    shell: request.command,
    timeoutMs: request.timeoutMs,
    ...(request.env ? { env: request.env } : {}),
    ...(request.stdin ? { stdin: request.stdin } : {}),
    ...(cwd ? { cwd } : {}),
  };
  try {
    const result = await context.backend.exec(vm.data.handle, execRequest, {
      signal,
      timeoutMs: request.timeoutMs + DEADLINE_SLACK_MS,
    });
    return {
      stdout: result.stdout,
      stderr: result.stderr,
      statusCode: result.timedOut ? null : result.exitCode,
    };
  } catch (error) {
    // The VM was deleted while the command ran.
    throw fromBackendError(error, vmNotFound(vm.id));
  }
}

function parseEnv(value: unknown): Record<string, string> | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "object" || Array.isArray(value)) throw badRequest("env must be an object of strings");
  const env: Record<string, string> = {};
  for (const [name, entry] of Object.entries(value)) {
    if (!ENV_NAME.test(name)) throw badRequest(`env name ${JSON.stringify(name)} is not a valid POSIX name`);
    if (typeof entry !== "string") throw badRequest(`env.${name} must be a string`);
    env[name] = entry;
  }
  return env;
}

function parseStdin(value: unknown): Uint8Array | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string" || !BASE64.test(value)) throw badRequest("stdin must be base64");
  const bytes = Buffer.from(value, "base64");
  if (bytes.length > MAX_STDIN_BYTES) throw badRequest(`stdin may be at most ${MAX_STDIN_BYTES} bytes decoded`);
  return bytes;
}

function parseTimeout(value: unknown): number {
  if (value === undefined || value === null) return DEFAULT_TIMEOUT_MS;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > MAX_TIMEOUT_MS) {
    throw badRequest(`timeoutMs must be an integer from 1 to ${MAX_TIMEOUT_MS}`);
  }
  return value;
}
