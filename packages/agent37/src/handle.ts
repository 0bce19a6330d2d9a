import type { SandboxHandle } from "@sandport/core";
import { handleRecipe } from "@sandport/core/adapter";
import type { Agent37Instance } from "./internal/sdk-types.js";

/** Provider name, in handles and errors. */
export const PROVIDER = "agent37";

/** A handle to an Agent37 instance. Plain data; rebuild it in another process with `getById`. */
export interface Agent37Handle extends SandboxHandle {
  /** Always `"agent37"`. */
  readonly provider: "agent37";
}

const handles = handleRecipe(PROVIDER, {
  valid: /^[a-z0-9]{1,63}$/,
  refusal: "instance id must be 1-63 characters of [a-z0-9] (a DNS label)",
});

/** A handle from what Agent37 reports about an instance (the caller checks ownership first). */
export function handleFromInstance(instance: Agent37Instance): Agent37Handle {
  const created = typeof instance.created === "number" ? new Date(instance.created * 1000).toISOString() : undefined;
  return handles.toHandle(instance.id, instance.metadata ?? undefined, created);
}

/** The instance id of a handle: an Agent37 handle (`checkHandle`) whose id can be an instance id. */
export const instanceIdOf = handles.idOf;

/** Refuses (`INVALID_REQUEST`) an id that cannot be an instance id, before it reaches a URL. */
export const validInstanceId = handles.validId;
