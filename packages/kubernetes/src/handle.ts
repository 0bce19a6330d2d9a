import type { SandboxHandle } from "@sandport/core";
import { handleRecipe } from "@sandport/core/adapter";

/** Provider name, in handles and errors. */
export const PROVIDER = "kubernetes";

/**
 * A handle to one agent-sandbox `SandboxClaim` (its `id` is the claim's
 * name). Plain data; rebuild it in another process with `getById`.
 */
export interface KubernetesHandle extends SandboxHandle {
  /** Always `"kubernetes"`. */
  readonly provider: "kubernetes";
}

const handles = handleRecipe(PROVIDER, {
  valid: /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/,
  refusal: "claim name must be a DNS-1123 subdomain: 1-253 characters of [a-z0-9.-], starting and ending alphanumeric",
});

/** A handle from a claim's name, stored labels and creation time (the caller checks ownership first). */
export function handleFromClaim(
  name: string,
  labels: Readonly<Record<string, string>> | undefined,
  created: string | undefined,
): KubernetesHandle {
  return handles.toHandle(name, labels, created);
}

/** The claim name of a handle: a Kubernetes handle (`checkHandle`) whose id can be a claim name. */
export const claimNameOf = handles.idOf;

/** Refuses (`INVALID_REQUEST`) an id that cannot be a claim name, before it reaches a URL. */
export const validClaimName = handles.validId;
