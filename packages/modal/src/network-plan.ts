import type { NetworkPolicy } from "@sandport/core";

/** The network fields of a Modal create. */
export interface ModalNetworkFields {
  /** Always sent; false with an allow list (the SDK refuses `outboundCidrAllowlist` beside `blockNetwork: true`). */
  readonly blockNetwork: boolean;
  /** The allowed CIDR ranges; present only for a non-empty allow list. */
  readonly outboundCidrAllowlist?: string[];
}

/**
 * The network fields for a validated policy (`fallback` is the runtime's
 * `network` option, used when the launch names none): `"none"` and an empty
 * allow list block the network; an allow list (of CIDR ranges only: the
 * runtime declares `cidr`, so a domain entry was refused before this) becomes
 * `outboundCidrAllowlist`, which Modal enforces for every protocol and port.
 */
export function networkFields(policy: NetworkPolicy | undefined, fallback: boolean): ModalNetworkFields {
  if (policy === undefined) return { blockNetwork: !fallback };
  if (policy === "all" || policy === "none") return { blockNetwork: policy === "none" };
  if (policy.allow.length === 0) return { blockNetwork: true };
  return { blockNetwork: false, outboundCidrAllowlist: [...policy.allow] };
}
