import type { GrantedResources, SandboxHandle } from "@sandport/core";
import { handleRecipe } from "@sandport/core/adapter";
import type { FreestyleVmData } from "./internal/sdk-types.js";

/** Provider name, in handles and errors. */
export const PROVIDER = "freestyle";

/** A handle to a Freestyle VM. Plain data; rebuild it in another process with `getById`. */
export interface FreestyleHandle extends SandboxHandle {
  /** Always `"freestyle"`. */
  readonly provider: "freestyle";
}

const handles = handleRecipe(PROVIDER, {
  valid: /^[A-Za-z0-9_-]{1,128}$/,
  refusal: "VM id must be 1-128 characters of [A-Za-z0-9_-]",
});

/** A handle from what Freestyle reports about a VM (the caller checks ownership first). */
export function handleFromVm(data: FreestyleVmData): FreestyleHandle {
  const handle = handles.toHandle(data.id, data.metadata, data.createdAt);
  const resources = grantedResources(data);
  return resources === undefined ? handle : { ...handle, resources };
}

/**
 * The VM's size as Freestyle reports it (`resources`: vCPUs, memory and disk
 * in MiB), in the port's units; `undefined` when the answer has none.
 */
export function grantedResources(data: Pick<FreestyleVmData, "resources">): GrantedResources | undefined {
  const size = (value: number | undefined) => (typeof value === "number" && Number.isFinite(value) ? value : undefined);
  const cpus = size(data.resources?.cpu);
  const memoryMiB = size(data.resources?.memory);
  const diskMiB = size(data.resources?.storage);
  const granted: GrantedResources = {
    ...(cpus === undefined ? {} : { cpus }),
    ...(memoryMiB === undefined ? {} : { memoryMiB }),
    ...(diskMiB === undefined ? {} : { diskMiB }),
  };
  return Object.keys(granted).length === 0 ? undefined : Object.freeze(granted);
}

/** The VM id of a handle: a Freestyle handle (`checkHandle`) whose id can be a VM id. */
export const vmIdOf = handles.idOf;

/** Refuses (`INVALID_REQUEST`) an id that cannot be a VM id, before it reaches a URL. */
export const validVmId = handles.validId;
