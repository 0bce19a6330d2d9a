import { invalidRequest, type SandboxHandle } from "@sandport/core";
import { callerLabels, checkHandle } from "@sandport/core/adapter";
import type { FreestyleVmData } from "./internal/sdk-types.js";

/** Provider name, in handles and errors. */
export const PROVIDER = "freestyle";

/** A handle to a Freestyle VM. Plain data; rebuild it in another process with `getById`. */
export interface FreestyleHandle extends SandboxHandle {
  /** Always `"freestyle"`. */
  readonly provider: "freestyle";
}

/** A handle from what Freestyle reports about a VM (the caller checks ownership first). */
export function handleFromVm(data: FreestyleVmData): FreestyleHandle {
  const createdAt = new Date(data.createdAt);
  return {
    id: data.id,
    provider: PROVIDER,
    labels: callerLabels(data.metadata),
    ...(Number.isNaN(createdAt.getTime()) ? {} : { createdAt: createdAt.toISOString() }),
  };
}

/** The VM id of a handle: a Freestyle handle (`checkHandle`) whose id can be a VM id. */
export function vmIdOf(handle: unknown, operation: string): string {
  return validVmId(checkHandle(handle, PROVIDER, operation));
}

const VM_ID = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * Refuses (`INVALID_REQUEST`) an id that cannot be a VM id, before it reaches
 * a URL: ids like `..`, `/etc` or `a/b` would otherwise address other routes.
 */
export function validVmId(vmId: unknown): string {
  if (typeof vmId !== "string" || !VM_ID.test(vmId)) {
    throw invalidRequest("VM id must be 1-128 characters of [A-Za-z0-9_-]", { field: "id" }, PROVIDER);
  }
  return vmId;
}
