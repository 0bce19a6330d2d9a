/**
 * A Modal sandbox definition's `networkAccess` (`NetworkAccess` in the
 * SDK's protobuf: `networkAccessType` OPEN, BLOCKED or ALLOWLIST, with
 * `allowedCidrs` and `allowedDomains`), validated, and the port policy the
 * backend sandbox is launched with to enforce it.
 *
 * @module
 */

import { type NetworkPolicy, parseNetworkRule } from "@sandport/core";
import { GrpcError } from "./grpc-status.js";

/** What a sandbox was created with, kept on its record. */
export interface OutboundNetwork {
  readonly type: "OPEN" | "BLOCKED" | "ALLOWLIST";
  readonly allowedCidrs: readonly string[];
  readonly allowedDomains: readonly string[];
}

/** Reads `networkAccess` (absent or type unspecified: OPEN); a malformed entry is `INVALID_ARGUMENT`. */
export function readNetworkAccess(value: unknown): OutboundNetwork {
  const access = (value ?? {}) as Record<string, unknown>;
  const type = access.networkAccessType;
  const list = (field: string) =>
    Array.isArray(access[field]) ? (access[field] as unknown[]).map((entry) => String(entry)) : [];
  if (type === "BLOCKED") return { type, allowedCidrs: [], allowedDomains: [] };
  if (type !== "ALLOWLIST") return { type: "OPEN", allowedCidrs: [], allowedDomains: [] };
  const allowedCidrs = list("allowedCidrs");
  const allowedDomains = list("allowedDomains");
  for (const cidr of allowedCidrs) {
    if (!cidr.includes("/") || !valid(cidr)) throw new GrpcError("INVALID_ARGUMENT", `invalid CIDR: ${cidr}`);
  }
  for (const domain of allowedDomains) {
    if (domain.includes("/") || domain.includes(":") || !valid(domain)) {
      throw new GrpcError("INVALID_ARGUMENT", `invalid domain: ${domain}`);
    }
  }
  return { type, allowedCidrs, allowedDomains };
}

/**
 * The port policy that enforces `network` on the backend: OPEN leaves the
 * backend's default, BLOCKED is `"none"`, ALLOWLIST the ranges (any port)
 * and the names on port 443 only (Modal's domain allowlist admits TLS to
 * 443; the backend cannot tell TLS from other traffic on that port).
 */
export function backendNetwork(network: OutboundNetwork): NetworkPolicy | undefined {
  if (network.type === "OPEN") return undefined;
  if (network.type === "BLOCKED") return "none";
  return { allow: [...network.allowedCidrs, ...network.allowedDomains.map((domain) => `${domain}:443`)] };
}

function valid(entry: string): boolean {
  try {
    parseNetworkRule(entry);
    return true;
  } catch {
    return false;
  }
}
