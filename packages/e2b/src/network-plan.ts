import { type NetworkPolicy, parseNetworkRule, SandportError } from "@sandport/core";
import { PROVIDER } from "./handle.js";

/** E2B's range for "every IPv4 destination" (the SDK's `ALL_TRAFFIC`). */
export const ALL_TRAFFIC = "0.0.0.0/0";

/**
 * The egress fields of an E2B create: `allowInternetAccess`, and for an allow
 * list `network.allowOut` / `network.denyOut`.
 */
export interface E2BEgress {
  /** `allow_internet_access` on the wire. */
  readonly allowInternetAccess: boolean;
  /** Destinations allowed although everything else is denied (`network.allowOut`). */
  readonly allowOut?: readonly string[];
  /** Destinations denied (`network.denyOut`): always every IPv4 address when `allowOut` is sent. */
  readonly denyOut?: readonly string[];
}

/**
 * Translates a validated network policy (or the runtime's default, `fallback`)
 * into E2B's egress fields. An allow list becomes `allowOut` (its domains,
 * `*.` wildcards and IPv4 ranges as they are) with `denyOut: ["0.0.0.0/0"]`,
 * and `allowInternetAccess: false` as well, which E2B documents as the same
 * deny-all: an SDK or server that dropped the lists would leave the sandbox
 * without network rather than open. Entries E2B cannot express are refused
 * with `UNSUPPORTED` naming the entry, before any request: a domain with a
 * `:port` (E2B's rules have no ports) and an IPv6 range (E2B's rules and its
 * deny-all range are IPv4).
 */
export function e2bEgress(policy: NetworkPolicy | undefined, fallback: boolean): E2BEgress {
  if (policy === undefined) return { allowInternetAccess: fallback };
  if (policy === "all" || policy === "none") return { allowInternetAccess: policy === "all" };
  const allowOut = policy.allow.map((entry) => {
    const rule = parseNetworkRule(entry);
    if (rule.kind === "domain" && rule.port !== undefined) {
      throw refused(
        entry,
        "E2B's allowOut has no ports: a domain entry allows the name itself, so write it without one",
      );
    }
    if (rule.kind === "cidr" && rule.family === 6) {
      throw refused(entry, "E2B's egress rules are IPv4 (its all-traffic range is 0.0.0.0/0)");
    }
    return entry;
  });
  if (allowOut.length === 0) return { allowInternetAccess: false };
  return { allowInternetAccess: false, allowOut, denyOut: [ALL_TRAFFIC] };
}

/** `UNSUPPORTED` for one allow-list entry E2B cannot enforce as written. */
function refused(entry: string, reason: string): SandportError {
  return new SandportError({
    code: "UNSUPPORTED",
    provider: PROVIDER,
    retryable: false,
    message: `${PROVIDER} does not support the network allow list entry ${JSON.stringify(entry)}: ${reason}`,
    details: { feature: "network allow list entry", entry },
  });
}
