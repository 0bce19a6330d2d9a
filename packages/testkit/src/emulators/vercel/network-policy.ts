/**
 * Vercel's `networkPolicy` on create: read and validated in the forms the
 * SDK and the REST reference send, kept as Vercel reports it, and turned into
 * the port policy the backend sandbox is launched with, which the backend (a
 * `LocalRuntime`'s allowlist proxy) enforces.
 *
 * @module
 */

import { isIP } from "node:net";
import { type NetworkPolicy, validateNetworkPolicy } from "@sandport/core";

/** A network policy as Vercel reports it (the SDK's `NetworkPolicyResponseValidator`). */
export type ReportedNetworkPolicy =
  | { readonly mode: "allow-all" | "deny-all" }
  | {
      readonly mode: "custom";
      readonly allowedDomains?: readonly string[];
      readonly allowedCIDRs?: readonly string[];
      readonly deniedCIDRs?: readonly string[];
    };

/** A policy read from a create body, or why it is refused (400). */
export type ReadNetworkPolicy = { readonly policy: ReportedNetworkPolicy } | { readonly refused: string };

const LABEL = /^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?$/i;

/** Whether `entry` is a domain name, optionally with a leading `*.`. */
function isDomain(entry: string): boolean {
  const name = entry.startsWith("*.") ? entry.slice(2) : entry;
  return (
    name.length > 0 && name.length <= 253 && name.split(".").every((label) => LABEL.test(label)) && isIP(name) === 0
  );
}

/** Whether `entry` is a CIDR range (IPv4 or IPv6, with its prefix length). */
function isCidr(entry: string): boolean {
  const [address = "", length = "", ...rest] = entry.split("/");
  const family = isIP(address);
  if (rest.length > 0 || family === 0 || !/^[0-9]{1,3}$/.test(length)) return false;
  return Number(length) <= (family === 4 ? 32 : 128);
}

/** `value` as a list of strings each passing `valid`, or why not. */
function readList(value: unknown, field: string, valid: (entry: string) => boolean, what: string): string[] | string {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return `networkPolicy.${field} must be an array of strings`;
  for (const entry of value) {
    if (typeof entry !== "string" || !valid(entry)) {
      return `networkPolicy.${field}: ${JSON.stringify(entry)} is not ${what}`;
    }
  }
  return value as string[];
}

/** The domains of `allow`: a list, or a record whose rule lists must be empty here (rules are not emulated). */
function readDomains(value: unknown): string[] | string {
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    const ruled = Object.entries(value).find(([, rules]) => !Array.isArray(rules) || rules.length > 0);
    if (ruled)
      return `networkPolicy.allow[${JSON.stringify(ruled[0])}]: domain rules (transform, forwardURL, response) are not emulated`;
    value = Object.keys(value);
  }
  if (Array.isArray(value) && value.includes("*")) return 'networkPolicy.allow: the catch-all "*" is not emulated';
  return readList(value, "allow", isDomain, "a domain name or *.domain");
}

/**
 * Reads `networkPolicy` from a create body: absent (allow-all),
 * `{ mode: "allow-all" | "deny-all" }`, the SDK's user-defined form
 * `{ allow, subnets: { allow, deny } }`, or the REST reference's
 * `{ mode: "custom", allowedDomains, allowedCIDRs, deniedCIDRs }`. Domains
 * (with `*.` wildcards) and CIDR ranges are checked; what the emulator cannot
 * enforce (denied ranges, domain rules, the catch-all `*`) is refused.
 */
export function readNetworkPolicy(value: unknown): ReadNetworkPolicy {
  if (value === undefined || value === null) return { policy: { mode: "allow-all" } };
  if (typeof value !== "object" || Array.isArray(value)) return { refused: "networkPolicy must be an object" };
  const body = value as Record<string, unknown>;
  if (body.mode === "allow-all" || body.mode === "deny-all") return { policy: { mode: body.mode } };
  if (body.mode !== undefined && body.mode !== "custom") {
    return { refused: `networkPolicy.mode must be allow-all, deny-all or custom, got ${JSON.stringify(body.mode)}` };
  }
  const custom = body.mode === "custom";
  const subnets = (custom ? {} : (body.subnets ?? {})) as Record<string, unknown>;
  if (typeof subnets !== "object" || subnets === null || Array.isArray(subnets)) {
    return { refused: "networkPolicy.subnets must be an object" };
  }
  const domains = custom
    ? readList(body.allowedDomains, "allowedDomains", isDomain, "a domain name or *.domain")
    : readDomains(body.allow);
  if (typeof domains === "string") return { refused: domains };
  const cidrField = custom ? "allowedCIDRs" : "subnets.allow";
  const ranges = readList(custom ? body.allowedCIDRs : subnets.allow, cidrField, isCidr, "a CIDR range");
  if (typeof ranges === "string") return { refused: ranges };
  const denyField = custom ? "deniedCIDRs" : "subnets.deny";
  const denied = readList(custom ? body.deniedCIDRs : subnets.deny, denyField, isCidr, "a CIDR range");
  if (typeof denied === "string") return { refused: denied };
  if (denied.length > 0) return { refused: `networkPolicy.${denyField}: denied ranges are not emulated` };
  return {
    policy: {
      mode: "custom",
      ...(domains.length === 0 ? {} : { allowedDomains: domains }),
      ...(ranges.length === 0 ? {} : { allowedCIDRs: ranges }),
    },
  };
}

/**
 * The port policy that enforces `policy` on the backend sandbox:
 * `"all"`, `"none"`, or `{ allow }` with the allowed domains and ranges
 * (everything else denied, as Vercel's user-defined mode does).
 */
export function backendPolicy(policy: ReportedNetworkPolicy): NetworkPolicy {
  if (policy.mode !== "custom") return policy.mode === "allow-all" ? "all" : "none";
  const allow = [...(policy.allowedDomains ?? []), ...(policy.allowedCIDRs ?? [])];
  return allow.length === 0 ? "none" : (validateNetworkPolicy({ allow }) as NetworkPolicy);
}
