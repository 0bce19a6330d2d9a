import { type NetworkPolicy, parseNetworkRule, SandportError } from "@sandport/core";
import { PROVIDER } from "./handle.js";
import type { VercelNetworkPolicy } from "./internal/sdk-types.js";

/**
 * Translates a validated network policy (or the runtime's default, `fallback`)
 * into Vercel's `networkPolicy`: `"all"` is `allow-all`, `"none"` and an empty
 * allow list are `deny-all`, and an allow list is the user-defined form,
 * which denies everything else: its domains and `*.` wildcards in `allow`,
 * its ranges (IPv4 and IPv6) in `subnets.allow`. A domain with a `:port` is
 * refused with `UNSUPPORTED` naming the entry, before any request: Vercel's
 * rules have no ports.
 */
export function vercelNetworkPolicy(policy: NetworkPolicy | undefined, fallback: boolean): VercelNetworkPolicy {
  if (policy === undefined) return fallback ? "allow-all" : "deny-all";
  if (policy === "all") return "allow-all";
  if (policy === "none" || policy.allow.length === 0) return "deny-all";
  const domains: string[] = [];
  const ranges: string[] = [];
  for (const entry of policy.allow) {
    const rule = parseNetworkRule(entry);
    if (rule.kind === "cidr") ranges.push(entry);
    else if (rule.port === undefined) domains.push(entry);
    else throw refused(entry, "Vercel's network policy has no ports: a domain entry allows the name itself");
  }
  return ranges.length === 0 ? { allow: domains } : { allow: domains, subnets: { allow: ranges } };
}

/** `UNSUPPORTED` for one allow-list entry Vercel cannot enforce as written. */
function refused(entry: string, reason: string): SandportError {
  return new SandportError({
    code: "UNSUPPORTED",
    provider: PROVIDER,
    retryable: false,
    message: `${PROVIDER} does not support the network allow list entry ${JSON.stringify(entry)}: ${reason}`,
    details: { feature: "network allow list entry", entry },
  });
}
