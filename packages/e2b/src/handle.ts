import { invalidRequest, type SandboxHandle } from "@sandport/core";
import { callerLabels, checkHandle } from "@sandport/core/adapter";
import type { E2BSandboxInfo } from "./internal/sdk-types.js";

/** Provider name, in handles and errors. */
export const PROVIDER = "e2b";

/** A handle to an E2B sandbox. Plain data; rebuild it in another process with `getById`. */
export interface E2BHandle extends SandboxHandle {
  /** Always `"e2b"`. */
  readonly provider: "e2b";
}

/** A handle from what E2B reports about a sandbox (the caller checks ownership first). */
export function handleFromInfo(info: E2BSandboxInfo): E2BHandle {
  const startedAt = info.startedAt instanceof Date ? info.startedAt : new Date(info.startedAt);
  return {
    id: info.sandboxId,
    provider: PROVIDER,
    labels: callerLabels(info.metadata),
    ...(Number.isNaN(startedAt.getTime()) ? {} : { createdAt: startedAt.toISOString() }),
  };
}

/** The sandbox id of a handle: an E2B handle (`checkHandle`) whose id can be an E2B sandbox id. */
export function sandboxIdOf(handle: unknown, operation: string): string {
  return validSandboxId(checkHandle(handle, PROVIDER, operation));
}

const SANDBOX_ID = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * Refuses (`INVALID_REQUEST`) an id that cannot be an E2B sandbox id, before it
 * reaches a URL: ids like `..`, `/etc` or `a/b` would otherwise address other routes.
 */
export function validSandboxId(sandboxId: unknown): string {
  if (typeof sandboxId !== "string" || !SANDBOX_ID.test(sandboxId)) {
    throw invalidRequest("sandbox id must be 1-128 characters of [A-Za-z0-9_-]", { field: "id" }, PROVIDER);
  }
  return sandboxId;
}
