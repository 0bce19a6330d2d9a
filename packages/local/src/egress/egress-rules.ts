import { isIP } from "node:net";
import { type CidrRule, cidrContains, type DomainRule, type NetworkPolicy, parseNetworkRule } from "@sandport/core";

/**
 * Address ranges a sandbox never reaches unless a CIDR entry of its allow
 * list names them: "this network", private (RFC 1918, unique local),
 * carrier-grade NAT, loopback, link-local (cloud metadata services live at
 * 169.254.169.254 and fd00:ec2::254), benchmarking, multicast, reserved and
 * broadcast, and the IPv6 forms of these (IPv4-mapped addresses are checked
 * as IPv4).
 */
const SPECIAL_RANGES: readonly CidrRule[] = [
  "0.0.0.0/8",
  "10.0.0.0/8",
  "100.64.0.0/10",
  "127.0.0.0/8",
  "169.254.0.0/16",
  "172.16.0.0/12",
  "192.0.0.0/24",
  "192.168.0.0/16",
  "198.18.0.0/15",
  "224.0.0.0/4",
  "240.0.0.0/4",
  "::/128",
  "::1/128",
  "fc00::/7",
  "fe80::/10",
  "ff00::/8",
  "64:ff9b::/96",
].map((entry) => parseNetworkRule(entry) as CidrRule);

/** True when `address` is public: in none of the loopback, private, link-local, metadata or reserved ranges. */
export function isPublicAddress(address: string): boolean {
  return !SPECIAL_RANGES.some((range) => cidrContains(range, address));
}

/** Where one connection may go: the address to dial, or why none is allowed. */
export type EgressDecision =
  | { readonly allowed: true; readonly address: string }
  | { readonly allowed: false; readonly reason: string; readonly addresses: readonly string[] };

/** Resolves a host name to its addresses (IPv4 and IPv6), as the proxy dials them. */
export type EgressResolver = (host: string) => Promise<readonly string[]>;

/**
 * The rules of one sandbox's network policy (`"all"` or an allow list) and
 * the decision for each destination:
 *
 * - a name must match a domain entry (and the entry's port, if any), and is
 *   dialled at the first address it resolves to that is public or lies in a
 *   CIDR entry (so a name resolving to loopback, a private network or a
 *   metadata service is refused unless a CIDR entry names that address);
 * - an address (a literal) must lie in a CIDR entry.
 *
 * Under `"all"` every name and address is allowed at its public addresses,
 * and nothing else.
 */
export class EgressRules {
  readonly #domains: readonly DomainRule[];
  readonly #ranges: readonly CidrRule[];
  readonly #all: boolean;

  /** @param policy `"all"` or an allow list, validated (`validateNetworkPolicy`). */
  constructor(policy: Exclude<NetworkPolicy, "none">) {
    this.#all = policy === "all";
    const rules = policy === "all" ? [] : policy.allow.map(parseNetworkRule);
    this.#domains = rules.filter((rule): rule is DomainRule => rule.kind === "domain");
    this.#ranges = rules.filter((rule): rule is CidrRule => rule.kind === "cidr");
  }

  /** Decides where a connection to `host:port` may go, resolving names with `resolve`. */
  async decide(host: string, port: number, resolve: EgressResolver): Promise<EgressDecision> {
    const name = host
      .toLowerCase()
      .replace(/^\[|\]$/g, "")
      .replace(/\.$/, "");
    const usable = (address: string) => this.#inRange(address) || (this.#all && isPublicAddress(address));
    if (isIP(name) !== 0) {
      if (usable(name)) return { allowed: true, address: name };
      const reason = this.#all
        ? `${name} is a loopback, private, link-local or reserved address, which only a CIDR entry allows`
        : `${name} lies in no CIDR entry of the allow list`;
      return { allowed: false, reason, addresses: [name] };
    }
    if (!this.#all && !this.#domains.some((rule) => matches(rule, name, port))) {
      return { allowed: false, reason: `${name}:${port} matches no entry of the allow list`, addresses: [] };
    }
    let addresses: readonly string[];
    try {
      addresses = await resolve(name);
    } catch (error) {
      return { allowed: false, reason: `${name} did not resolve: ${(error as Error).message}`, addresses: [] };
    }
    const address = addresses.find((candidate) => this.#inRange(candidate) || isPublicAddress(candidate));
    if (address !== undefined) return { allowed: true, address };
    const reason =
      addresses.length === 0
        ? `${name} has no address`
        : `${name} resolves only to loopback, private, link-local or reserved addresses (${addresses.join(", ")}), which only a CIDR entry allows`;
    return { allowed: false, reason, addresses };
  }

  #inRange(address: string): boolean {
    return this.#ranges.some((range) => cidrContains(range, address));
  }
}

function matches(rule: DomainRule, name: string, port: number): boolean {
  if (rule.port !== undefined && rule.port !== port) return false;
  return rule.wildcard ? name.endsWith(`.${rule.name}`) : name === rule.name;
}
