import { SandportError } from "../errors/sandport-error.js";

/** `NOT_FOUND`: a sandbox that does not exist (or no longer does). */
export function sandboxNotFound(
  provider: string,
  sandboxId: string,
  operation: string,
  cause?: unknown,
): SandportError {
  return new SandportError({
    code: "NOT_FOUND",
    provider,
    retryable: false,
    ...(cause === undefined ? {} : { cause }),
    message: `${provider} sandbox ${sandboxId} does not exist (${operation})`,
    details: { sandboxId, operation },
  });
}

/** `FOREIGN_SANDBOX`: a sandbox that exists without this runtime's ownership marker. */
export function foreignSandbox(provider: string, sandboxId: string, operation: string, reason?: string): SandportError {
  const why = reason ?? "it does not carry this runtime's ownership marker";
  return new SandportError({
    code: "FOREIGN_SANDBOX",
    provider,
    retryable: false,
    message: `${provider} sandbox ${sandboxId} is not this runtime's (${why}); refusing to ${operation} it`,
    details: { sandboxId, operation },
  });
}

/** `DESTROY_UNVERIFIED` (retryable): a destroy whose result could not be proven. */
export function destroyUnverified(provider: string, sandboxId: string, why: string, cause?: unknown): SandportError {
  return new SandportError({
    code: "DESTROY_UNVERIFIED",
    provider,
    retryable: true,
    ...(cause === undefined ? {} : { cause }),
    message: `${provider} sandbox ${sandboxId} could not be verified gone: ${why}; destroy it again to finish`,
    details: { sandboxId },
  });
}

/**
 * `NOT_FOUND`: a write to a spawned process that has exited (its stdin is
 * gone), as `SandboxProcess.write` reports it in every runtime.
 */
export function processExited(provider: string, cause?: unknown): SandportError {
  return new SandportError({
    code: "NOT_FOUND",
    provider,
    retryable: false,
    message: "the process has exited; its stdin is gone",
    ...(cause === undefined ? {} : { cause }),
  });
}
