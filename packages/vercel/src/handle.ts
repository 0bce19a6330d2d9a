import { invalidRequest, type SandboxHandle } from "@sandport/core";
import { callerLabels, checkHandle, foreignSandbox } from "@sandport/core/adapter";
import type { VercelSandboxRow } from "./internal/sdk-types.js";
import { MAX_NAME_LENGTH, NAME_CHARACTERS } from "./ownership.js";

/** Provider name, in handles and errors. */
export const PROVIDER = "vercel" as const;

/**
 * A handle to a Vercel sandbox; its `id` is the sandbox's name. Plain data:
 * rebuild it in another process with `getById`.
 */
export interface VercelHandle extends SandboxHandle {
  /** Always `"vercel"`. */
  readonly provider: "vercel";
}

/** A handle from a list row (the caller checks ownership first). */
export function handleFromRow(row: VercelSandboxRow): VercelHandle {
  const createdAt = new Date(row.createdAt);
  return {
    id: row.name,
    provider: PROVIDER,
    labels: callerLabels(row.tags),
    ...(Number.isNaN(createdAt.getTime()) ? {} : { createdAt: createdAt.toISOString() }),
  };
}

/** The sandbox name of a handle: a Vercel handle (`checkHandle`) whose id can be a sandbox name. */
export function sandboxNameOf(handle: unknown, operation: string): string {
  return validSandboxName(checkHandle(handle, PROVIDER, operation));
}

/** `name` when it lies inside the prefix (the ownership boundary); `FOREIGN_SANDBOX` otherwise, without a request. */
export function ourSandboxName(name: string, prefix: string, operation: string): string {
  if (name.startsWith(prefix) && name.length > prefix.length) return name;
  throw foreignSandbox(PROVIDER, name, operation, `its name does not start with ${prefix}`);
}

/**
 * Refuses (`INVALID_REQUEST`) an id that cannot be a sandbox name, before it
 * reaches a URL: ids like `..`, `/etc` or `a/b` would otherwise address other routes.
 */
export function validSandboxName(name: unknown): string {
  if (
    typeof name !== "string" ||
    name.length > MAX_NAME_LENGTH ||
    !NAME_CHARACTERS.test(name) ||
    !/^[A-Za-z0-9]/.test(name)
  ) {
    throw invalidRequest(
      `a sandbox name is 1-${MAX_NAME_LENGTH} characters of [A-Za-z0-9._-], starting with a letter or digit`,
      { field: "id" },
      PROVIDER,
    );
  }
  return name;
}

/** @deprecated Renamed {@link VercelHandle}, as every provider's `<P>Handle`; this alias will be removed. */
export type VercelSandboxHandle = VercelHandle;
