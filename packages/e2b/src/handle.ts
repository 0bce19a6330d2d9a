import type { GrantedResources, SandboxHandle } from "@sandport/core";
import { handleRecipe } from "@sandport/core/adapter";
import type { E2BSandboxInfo } from "./internal/sdk-types.js";

/** Provider name, in handles and errors. */
export const PROVIDER = "e2b";

/** A handle to an E2B sandbox. Plain data; rebuild it in another process with `getById`. */
export interface E2BHandle extends SandboxHandle {
  /** Always `"e2b"`. */
  readonly provider: "e2b";
}

const handles = handleRecipe(PROVIDER, {
  valid: /^[A-Za-z0-9_-]{1,128}$/,
  refusal: "sandbox id must be 1-128 characters of [A-Za-z0-9_-]",
});

/**
 * A handle from what E2B reports about a sandbox (the caller checks ownership
 * first), with what it was given as `resources` ({@link grantedResources}).
 */
export function handleFromInfo(info: E2BSandboxInfo): E2BHandle {
  const handle = handles.toHandle(info.sandboxId, info.metadata, info.startedAt);
  const resources = grantedResources(info);
  return resources === undefined ? handle : { ...handle, resources };
}

/**
 * What E2B gave the sandbox, from its answer (`GET /sandboxes/{id}` or a list
 * page): `cpuCount` as `cpus` and `memoryMB` (MiB, as E2B's API documents it)
 * as `memoryMiB`; `undefined` when the answer reports neither. The disk size
 * (`diskSizeMB`) is in E2B's answer but the SDK's `SandboxInfo` drops it, and
 * E2B has no process limit, so `diskMiB` and `maxProcesses` are never reported.
 */
export function grantedResources(info: E2BSandboxInfo): GrantedResources | undefined {
  const size = (value: unknown) =>
    typeof value === "number" && Number.isFinite(value) && value > 0 ? value : undefined;
  const cpus = size(info.cpuCount);
  const memoryMiB = size(info.memoryMB);
  const granted: GrantedResources = {
    ...(cpus === undefined ? {} : { cpus }),
    ...(memoryMiB === undefined ? {} : { memoryMiB }),
  };
  return Object.keys(granted).length === 0 ? undefined : Object.freeze(granted);
}

/** The sandbox id of a handle: an E2B handle (`checkHandle`) whose id can be an E2B sandbox id. */
export const sandboxIdOf = handles.idOf;

/** Refuses (`INVALID_REQUEST`) an id that cannot be an E2B sandbox id, before it reaches a URL. */
export const validSandboxId = handles.validId;
