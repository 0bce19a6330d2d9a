import type { GrantedResources, SandboxHandle } from "@sandport/core";
import { foreignSandbox, handleRecipe } from "@sandport/core/adapter";
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

const handles = handleRecipe(PROVIDER, {
  valid: (name) => name.length <= MAX_NAME_LENGTH && NAME_CHARACTERS.test(name) && /^[A-Za-z0-9]/.test(name),
  refusal: `a sandbox name is 1-${MAX_NAME_LENGTH} characters of [A-Za-z0-9._-], starting with a letter or digit`,
});

/** A handle from a list row (the caller checks ownership first). */
export function handleFromRow(row: VercelSandboxRow): VercelHandle {
  return withGranted(handles.toHandle(row.name, row.tags, row.createdAt), row);
}

/**
 * `handle` with what Vercel reports it gave the sandbox (`vcpus`, and
 * `memory` in MB, which Vercel counts as MiB: 2048 per vCPU) as its
 * `resources`; unchanged when the answer reports neither.
 */
export function withGranted(
  handle: VercelHandle,
  reported: { readonly vcpus?: number | undefined; readonly memory?: number | undefined },
): VercelHandle {
  const size = (value: number | undefined) => (typeof value === "number" && Number.isFinite(value) ? value : undefined);
  const cpus = size(reported.vcpus);
  const memoryMiB = size(reported.memory);
  const granted: GrantedResources = {
    ...(cpus === undefined ? {} : { cpus }),
    ...(memoryMiB === undefined ? {} : { memoryMiB }),
  };
  return Object.keys(granted).length === 0 ? handle : { ...handle, resources: Object.freeze(granted) };
}

/** The sandbox name of a handle: a Vercel handle (`checkHandle`) whose id can be a sandbox name. */
export const sandboxNameOf = handles.idOf;

/** `name` when it lies inside the prefix (the ownership boundary); `FOREIGN_SANDBOX` otherwise, without a request. */
export function ourSandboxName(name: string, prefix: string, operation: string): string {
  if (name.startsWith(prefix) && name.length > prefix.length) return name;
  throw foreignSandbox(PROVIDER, name, operation, `its name does not start with ${prefix}`);
}

/**
 * Refuses (`INVALID_REQUEST`) an id that cannot be a sandbox name, before it
 * reaches a URL: ids like `..`, `/etc` or `a/b` would otherwise address other routes.
 */
export const validSandboxName = handles.validId;

/** @deprecated Renamed {@link VercelHandle}, as every provider's `<P>Handle`; this alias will be removed. */
export type VercelSandboxHandle = VercelHandle;
