import { invalidRequest } from "../errors/factories.js";

/**
 * Checks that `handle` is a handle of this provider (an object with a
 * non-empty string `id` and the right `provider`) and returns its id. Throws
 * `INVALID_REQUEST` before any provider call; the id's own format is the
 * adapter's to check.
 */
export function checkHandle(handle: unknown, provider: string, operation: string): string {
  const candidate = handle as { id?: unknown; provider?: unknown } | null;
  if (typeof candidate !== "object" || candidate === null || typeof candidate.id !== "string" || candidate.id === "") {
    throw invalidRequest(`${operation} needs a sandbox handle with an id`, { field: "handle" }, provider);
  }
  if (candidate.provider !== provider) {
    throw invalidRequest(
      `${operation} got a handle from provider ${JSON.stringify(candidate.provider)}, not ${provider}`,
      { field: "handle", handleProvider: candidate.provider },
      provider,
    );
  }
  return candidate.id;
}
