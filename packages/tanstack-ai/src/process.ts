import { posix } from "node:path";
import { type ExecRequest, type ExecResult, exitStatus, RESERVED_ENV, type SandboxHandle } from "@sandport/core";
import type {
  ProcessOptions,
  SandboxProcess,
  SpawnHandle,
  ExecResult as TanStackExecResult,
} from "@tanstack/ai-sandbox";
import { type HandleContext, requireMethod } from "./context.js";
import { sandboxPath } from "./paths.js";
import { spawnHandle } from "./spawn-handle.js";

/**
 * TanStack AI's `SandboxProcess` over one sandbox. Both run `command` with
 * `sh -c`, in `cwd` (TanStack AI's `/workspace` moved onto the runtime's
 * workspace root; relative to, and by default, the provider's
 * `workingDirectory`, itself by default the workspace root), with `env` over the handle's
 * `env.set` overlay over the launch env (less the runtime's own per-command
 * markers, `SANDPORT_EXEC_ID` and the like, which a copied environment carries
 * and the runtime sets afresh). `signal` is passed on: an abort
 * kills the command and rejects with the port's `ABORTED`.
 *
 * `exec`'s `exitCode` is a number: a command the runtime stopped (`exitCode:
 * null` in the port) reports 124 when it ran past its time limit, else 137
 * (core's `exitStatus`, as every bridge maps it), with why said on stderr.
 * `spawn` needs the runtime's `spawn` (else TanStack AI's
 * `UnsupportedCapabilityError`, and `capabilities.backgroundProcesses` is false).
 */
export function sandportProcess<H extends SandboxHandle>(
  context: HandleContext<H>,
  overlay: () => Readonly<Record<string, string>>,
): SandboxProcess {
  const request = (command: string, options: ProcessOptions): ExecRequest => {
    const env: Record<string, string> = { ...overlay(), ...options.env };
    // The runtime's own per-command markers: TanStack AI's bootstrap copies a shell's whole
    // environment (`export -p`) into later commands, and the runtime sets fresh ones on each.
    for (const name of RESERVED_ENV) delete env[name];
    return {
      shell: command,
      cwd: posix.resolve(context.baseDirectory, sandboxPath(options.cwd ?? ".", context.runtime.workspaceRoot)),
      ...(Object.keys(env).length === 0 ? {} : { env }),
      ...(context.commandTimeoutMs === undefined ? {} : { timeoutMs: context.commandTimeoutMs }),
    };
  };
  return {
    exec: async (command, options = {}) => {
      const op = options.signal ? { signal: options.signal } : {};
      return toTanStackResult(await context.runtime.exec(context.sandbox, request(command, options), op));
    },
    spawn: async (command, options = {}): Promise<SpawnHandle> => {
      const spawn = requireMethod(context, "spawn", "backgroundProcesses");
      const op = options.signal ? { signal: options.signal } : {};
      return spawnHandle(context, await spawn(context.sandbox, request(command, options), op));
    },
  };
}

/** A port result as TanStack AI's: the exit status as a number, and why a stopped command stopped on stderr. */
export function toTanStackResult(result: ExecResult): TanStackExecResult {
  return { stdout: result.stdout, stderr: result.stderr + stoppedNote(result), exitCode: exitStatus(result) };
}

/** What stopped a command that has no exit code, as a line for its stderr; empty for one that exited. */
export function stoppedNote(result: Pick<ExecResult, "exitCode" | "timedOut" | "truncated">): string {
  if (result.exitCode !== null) return "";
  if (result.timedOut) return "command timed out: stopped by its time limit\n";
  if (result.truncated) return "command stopped: its output passed the output cap\n";
  return "command killed\n";
}
