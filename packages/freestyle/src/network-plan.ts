import type { NetworkPolicy } from "@sandport/core";
import type { FreestyleFirewallRule } from "./internal/sdk-types.js";

/** The one rule that lets a VM reach the public Internet (`source: {}` is the VM being created). */
const PUBLIC_EGRESS: FreestyleFirewallRule = { action: "allow", source: {}, destination: { public: true } };

/**
 * The create's firewall rules for a validated policy (`fallback` is the
 * runtime's `network` option, used when the launch names none): `"all"` is the
 * one public-egress rule, `"none"` and an empty allow list no rule (a VM gets
 * nothing implicitly), and an allow list one rule per CIDR range, from the VM
 * to `{ cidr }` on every port and protocol. The runtime declares `cidr`, so a
 * domain entry was refused before this: Freestyle's matchers name VMs,
 * networks, tunnels, ranges and the public Internet, never a domain.
 */
export function firewallRules(policy: NetworkPolicy | undefined, fallback: boolean): FreestyleFirewallRule[] {
  if (policy === undefined) return fallback ? [PUBLIC_EGRESS] : [];
  if (policy === "all") return [PUBLIC_EGRESS];
  if (policy === "none") return [];
  return policy.allow.map((cidr) => ({ action: "allow", source: {}, destination: { cidr } }));
}
