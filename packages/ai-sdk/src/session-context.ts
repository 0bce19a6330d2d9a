import { posix } from "node:path";
import {
  bridgeBaseDirectory,
  type ExecRequest,
  type OpOptions,
  type SandboxHandle,
  type SandboxRuntime,
} from "@sandport/core";
import type { SandboxSessionOptions } from "./session-options.js";

/** What every session member works from: the runtime, the sandbox and the fixed base directory. */
export interface SessionContext<H extends SandboxHandle = SandboxHandle> {
  readonly runtime: SandboxRuntime<H>;
  readonly handle: H;
  /** Absolute base directory (see `SandboxSessionOptions.workingDirectory`). */
  readonly base: string;
  readonly commandTimeoutMs: number | undefined;
}

/** Builds the context, resolving the base directory once: it never moves for the session's life. */
export function sessionContext<H extends SandboxHandle>(options: SandboxSessionOptions<H>): SessionContext<H> {
  return {
    runtime: options.runtime,
    handle: options.handle,
    base: bridgeBaseDirectory(options),
    commandTimeoutMs: options.commandTimeoutMs,
  };
}

/** An absolute path for a session path: absolute paths as they are, relative ones against the base. */
export function resolvePath(context: SessionContext, path: string): string {
  return posix.resolve(context.base, path);
}

/** The per-call options for an AI SDK abort signal. */
export function opOptions(abortSignal: AbortSignal | undefined): OpOptions {
  return abortSignal === undefined ? {} : { signal: abortSignal };
}

/** The AI SDK's command options as a Sandport shell request, in the base directory unless told otherwise. */
export function shellRequest(
  context: SessionContext,
  options: { command: string; workingDirectory?: string; env?: Record<string, string> },
): ExecRequest {
  return {
    shell: options.command,
    cwd: options.workingDirectory === undefined ? context.base : resolvePath(context, options.workingDirectory),
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(context.commandTimeoutMs === undefined ? {} : { timeoutMs: context.commandTimeoutMs }),
  };
}
