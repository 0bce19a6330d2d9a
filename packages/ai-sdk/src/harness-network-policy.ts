import {
  describeValue,
  invalidRequest,
  type NetworkPolicy,
  parseNetworkRule,
  refuseUnknownKeys,
  validateNetworkPolicy,
} from "@sandport/core";

/**
 * A harness network policy in the port's terms: the launch's `network`, or
 * why the port cannot enforce it (`unenforceable`), to be refused with the
 * harness's `HarnessCapabilityUnsupportedError` before anything is launched.
 */
export type MappedNetworkPolicy =
  | { readonly network: NetworkPolicy; readonly unenforceable?: undefined }
  | { readonly network?: undefined; readonly unenforceable: string };

/** Keys a `custom` harness policy may have. */
const CUSTOM_KEYS = ["mode", "allowedHosts", "allowedCIDRs", "deniedCIDRs"];

/**
 * Maps a harness `HarnessV1NetworkPolicy` onto the port's `LaunchSpec.network`:
 * `allow-all` is `"all"`, `deny-all` is `"none"`, and `custom` is an allow
 * list of its `allowedHosts` (domain names, `*.` wildcards, optional `:port`)
 * and `allowedCIDRs`. A non-empty `deniedCIDRs` is `unenforceable`: the port's
 * allow lists cannot carve a range out of what they allow, and dropping it
 * would widen the policy. Malformed policies (an unknown mode or key, a host
 * that is not a domain name, a range that is not CIDR) are `INVALID_REQUEST`.
 */
export function mapHarnessNetworkPolicy(value: unknown, where: string, provider: string): MappedNetworkPolicy {
  const policy = value as Partial<Record<string, unknown>> | null;
  if (typeof policy !== "object" || policy === null || Array.isArray(policy)) {
    throw invalidRequest(`${where} must be a harness network policy object, got ${describeValue(value)}`, {}, provider);
  }
  const mode = policy.mode;
  if (mode === "allow-all" || mode === "deny-all") {
    refuseUnknownKeys(policy, ["mode"], where, provider);
    return { network: mode === "allow-all" ? "all" : "none" };
  }
  if (mode !== "custom") {
    throw invalidRequest(
      `${where}.mode must be "allow-all", "deny-all" or "custom", got ${describeValue(mode)}`,
      { field: "mode" },
      provider,
    );
  }
  refuseUnknownKeys(policy, CUSTOM_KEYS, where, provider);
  const hosts = entries(policy.allowedHosts, `${where}.allowedHosts`, provider);
  const ranges = entries(policy.allowedCIDRs, `${where}.allowedCIDRs`, provider);
  const denied = entries(policy.deniedCIDRs, `${where}.deniedCIDRs`, provider);
  if (policy.allowedHosts === undefined && policy.allowedCIDRs === undefined) {
    throw invalidRequest(`${where}: a custom policy needs allowedHosts or allowedCIDRs`, { field: "mode" }, provider);
  }
  const network = validateNetworkPolicy({ allow: [...hosts, ...ranges] }, provider) as NetworkPolicy;
  expectKind(hosts, "domain", `${where}.allowedHosts`, provider);
  expectKind([...ranges, ...denied], "cidr", `${where}.allowedCIDRs and deniedCIDRs`, provider);
  if (denied.length > 0) {
    return {
      unenforceable: `deny lists (deniedCIDRs ${denied.join(", ")}): the port's allow lists cannot refuse part of what they allow, so the policy is refused rather than widened`,
    };
  }
  return { network };
}

/**
 * Whether two launch policies are the same policy: equal words, or allow
 * lists with the same entries (names compared case-insensitively, in any order).
 */
export function sameNetworkPolicy(a: NetworkPolicy, b: NetworkPolicy): boolean {
  if (typeof a === "string" || typeof b === "string") return a === b;
  const set = (policy: { readonly allow: readonly string[] }) =>
    [...new Set(policy.allow.map((entry) => entry.toLowerCase()))].sort().join("\n");
  return set(a) === set(b);
}

/** A policy's list field: absent is empty, anything but an array of strings is `INVALID_REQUEST`. */
function entries(value: unknown, where: string, provider: string): readonly string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((entry) => typeof entry !== "string")) {
    throw invalidRequest(`${where} must be an array of strings, got ${describeValue(value)}`, {}, provider);
  }
  return value;
}

/** Refuses an entry of the wrong kind: a host list takes domain names, a CIDR list ranges. */
function expectKind(list: readonly string[], kind: "domain" | "cidr", where: string, provider: string): void {
  const kindOf = (entry: string) => {
    try {
      return parseNetworkRule(entry).kind;
    } catch {
      return undefined; // malformed: named below, with where it came from
    }
  };
  const wrong = list.find((entry) => kindOf(entry) !== kind);
  if (wrong === undefined) return;
  throw invalidRequest(
    `${where}: ${JSON.stringify(wrong)} is not a ${kind === "domain" ? "domain name" : "CIDR range"}`,
    {},
    provider,
  );
}
