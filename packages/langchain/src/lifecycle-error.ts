import type { SandboxError, SandboxErrorCode } from "deepagents";
import type { DeepAgentsSdk } from "./internal/sdk.js";

/**
 * The codes of the framework's `SandboxError` that the bridge's lifecycle
 * throws: deepagents' own (`NOT_INITIALIZED`, `ALREADY_INITIALIZED`,
 * `FILE_OPERATION_FAILED`) and those its first-party sandboxes add
 * (`SANDBOX_CREATION_FAILED` and `SANDBOX_NOT_FOUND` as Daytona, Modal and Deno
 * throw them; `NOT_SUPPORTED` as its Node VFS sandbox throws it), here for what
 * the runtime under the bridge cannot do.
 */
export type SandportDeepAgentsSandboxErrorCode =
  | SandboxErrorCode
  | "SANDBOX_CREATION_FAILED"
  | "SANDBOX_NOT_FOUND"
  | "NOT_SUPPORTED";

/**
 * Builds the framework's own `SandboxError` (from the loaded `deepagents`, so
 * `SandboxError.isInstance` and `instanceof` hold), with the Sandport failure
 * behind it as `cause`.
 */
export function sandboxError(
  sdk: DeepAgentsSdk,
  message: string,
  code: SandportDeepAgentsSandboxErrorCode,
  cause?: unknown,
): SandboxError {
  return new sdk.SandboxError(message, code, cause instanceof Error ? cause : undefined);
}

/** The message of a caught value, for an error that wraps it. */
export function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
