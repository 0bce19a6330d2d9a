import { SandportError } from "./sandport-error.js";

/** A refused request: thrown before any provider call, so nothing happened. */
export function invalidRequest(message: string, details?: Record<string, unknown>, provider?: string): SandportError {
  return new SandportError({ code: "INVALID_REQUEST", message, details, provider });
}

/**
 * A capability the runtime lacks. Thrown instead of silently doing nothing when a
 * caller reaches for an optional method or a limit the runtime cannot enforce.
 */
export function unsupported(provider: string, feature: string, reason?: string): SandportError {
  const suffix = reason ? `: ${reason}` : "";
  return new SandportError({
    code: "UNSUPPORTED",
    provider,
    message: `${provider} does not support ${feature}${suffix}`,
    details: { feature },
  });
}

/**
 * Wraps anything thrown into a `SandportError`. A `SandportError` passes through
 * unchanged; anything else becomes `UNEXPECTED` with the original as `cause`.
 */
export function toSandportError(error: unknown, provider?: string): SandportError {
  if (SandportError.isInstance(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new SandportError({ code: "UNEXPECTED", provider, message, cause: error });
}
