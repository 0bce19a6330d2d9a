import { isIP } from "node:net";
import { invalidRequest } from "../errors/factories.js";
import { NETWORK_ALLOW_LIST_KEYS, type NetworkPolicy } from "../port/network-policy.js";
import { refuseUnknownKeys } from "./known-keys.js";

/** Most entries one allow list may hold. */
export const MAX_NETWORK_RULES = 256;

/** A parsed domain entry of an allow list: `example.com`, `*.example.com`, either with `:port`. */
export interface DomainRule {
  /** Which kind of entry this is. */
  readonly kind: "domain";
  /** The name, lower-cased, without the `*.` prefix or the port. */
  readonly name: string;
  /** True for `*.name`: any name below `name`, not `name` itself. */
  readonly wildcard: boolean;
  /** The one port allowed, or undefined for every port. */
  readonly port?: number;
}

/** A parsed CIDR entry of an allow list. */
export interface CidrRule {
  /** Which kind of entry this is. */
  readonly kind: "cidr";
  /** 4 or 6. */
  readonly family: 4 | 6;
  /** The network address as an unsigned integer (32 or 128 bits). */
  readonly network: bigint;
  /** The prefix length: 0-32 for IPv4, 0-128 for IPv6. */
  readonly prefix: number;
}

/** One parsed allow-list entry. */
export type NetworkRule = DomainRule | CidrRule;

const LABEL = /^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?$/;

/**
 * Validates `LaunchSpec.network` and returns its canonical form: `true` becomes
 * `"all"`, `false` becomes `"none"`, an allow list a frozen copy whose every
 * entry parsed ({@link parseNetworkRule}). Anything else is `INVALID_REQUEST`
 * naming the bad entry (`details.field` is `network` or `network.allow[i]`).
 */
export function validateNetworkPolicy(value: unknown, provider?: string): NetworkPolicy | undefined {
  if (value === undefined) return undefined;
  if (value === true || value === "all") return "all";
  if (value === false || value === "none") return "none";
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw invalidRequest(
      `network must be "none", "all", a boolean or { allow: [...] }, got ${JSON.stringify(value)}`,
      { field: "network" },
      provider,
    );
  }
  refuseUnknownKeys(value, NETWORK_ALLOW_LIST_KEYS, "network", provider);
  const allow = (value as { allow?: unknown }).allow;
  if (!Array.isArray(allow))
    throw invalidRequest("network.allow must be an array of strings", { field: "network.allow" }, provider);
  if (allow.length > MAX_NETWORK_RULES) {
    throw invalidRequest(
      `network.allow holds at most ${MAX_NETWORK_RULES} entries`,
      { field: "network.allow" },
      provider,
    );
  }
  const entries = allow.map((entry, index) => {
    const field = `network.allow[${index}]`;
    const problem = typeof entry === "string" ? ruleProblem(entry) : "must be a string";
    if (problem !== undefined) {
      throw invalidRequest(`${field} ${JSON.stringify(entry)} ${problem}`, { field, entry }, provider);
    }
    return (entry as string).toLowerCase();
  });
  return Object.freeze({ allow: Object.freeze(entries) });
}

/**
 * Parses one allow-list entry (see `NetworkAllowList`). Throws
 * `INVALID_REQUEST` for an entry {@link validateNetworkPolicy} would refuse.
 */
export function parseNetworkRule(entry: string): NetworkRule {
  const problem = ruleProblem(entry);
  if (problem !== undefined) throw invalidRequest(`network entry ${JSON.stringify(entry)} ${problem}`, { entry });
  return parse(entry.toLowerCase()) as NetworkRule;
}

/** Why `entry` is not a valid allow-list entry, or undefined when it is. */
function ruleProblem(entry: string): string | undefined {
  const parsed = parse(entry.toLowerCase());
  return typeof parsed === "string" ? parsed : undefined;
}

/** The rule `entry` (lower-cased) is, or a string saying why it is none. */
function parse(entry: string): NetworkRule | string {
  if (entry.includes("/")) return parseCidr(entry);
  if (isIP(entry) !== 0 || isIP(entry.replace(/^\[|\]$/g, "")) !== 0) {
    return "is an address without a prefix length: write it as a CIDR range (/32 for IPv4, /128 for IPv6)";
  }
  const colon = entry.lastIndexOf(":");
  let host = entry;
  let port: number | undefined;
  if (colon >= 0) {
    const digits = entry.slice(colon + 1);
    port = /^[0-9]{1,5}$/.test(digits) ? Number(digits) : Number.NaN;
    if (!(port >= 1 && port <= 65535)) return "has a port that is not an integer from 1 to 65535";
    host = entry.slice(0, colon);
  }
  const wildcard = host.startsWith("*.");
  const name = wildcard ? host.slice(2) : host;
  if (name.length === 0 || name.length > 253) return "is not a domain name (1-253 characters)";
  const labels = name.split(".");
  if (!labels.every((label) => LABEL.test(label))) {
    return "is not a domain name, a *.domain wildcard or a CIDR range (labels of letters, digits, '-' and '_'; '*' only as a leading '*.')";
  }
  if (/^[0-9]+$/.test(labels[labels.length - 1] as string))
    return "ends in a numeric label: an address must be a CIDR range";
  return port === undefined ? { kind: "domain", name, wildcard } : { kind: "domain", name, wildcard, port };
}

/** The CIDR rule `entry` is, or why it is none. */
function parseCidr(entry: string): CidrRule | string {
  const [address = "", length = "", ...rest] = entry.split("/");
  const family = isIP(address);
  if (rest.length > 0 || family === 0) return "is not a CIDR range (an IPv4 or IPv6 address, '/', a prefix length)";
  const bits = family === 4 ? 32 : 128;
  const prefix = /^[0-9]{1,3}$/.test(length) ? Number(length) : Number.NaN;
  if (!(prefix >= 0 && prefix <= bits)) return `has a prefix length that is not an integer from 0 to ${bits}`;
  const network = addressToBigInt(address);
  if (network & hostMask(bits, prefix)) return "has bits set below its prefix length (write the range's first address)";
  return { kind: "cidr", family: family as 4 | 6, network, prefix };
}

/** The bits below a prefix of `prefix` in a `bits`-wide address. */
function hostMask(bits: number, prefix: number): bigint {
  return (1n << BigInt(bits - prefix)) - 1n;
}

/** True when `address` (an IPv4 or IPv6 literal) lies within `rule`. An IPv4-mapped IPv6 address matches IPv4 ranges. */
export function cidrContains(rule: CidrRule, address: string): boolean {
  let family = isIP(address);
  let value = family === 0 ? undefined : addressToBigInt(address);
  if (value === undefined) return false;
  if (family === 6 && rule.family === 4 && value >> 32n === 0xffffn) {
    family = 4;
    value &= 0xffffffffn;
  }
  if (family !== rule.family) return false;
  const bits = family === 4 ? 32 : 128;
  return (value & ~hostMask(bits, rule.prefix) & ((1n << BigInt(bits)) - 1n)) === rule.network;
}

/** The unsigned integer an IPv4 or IPv6 literal (as `net.isIP` accepts) stands for. */
export function addressToBigInt(address: string): bigint {
  if (isIP(address) === 4) return address.split(".").reduce((sum, part) => (sum << 8n) | BigInt(Number(part)), 0n);
  let text = address.replace(/%.*$/, "");
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const v4 = addressToBigInt(dotted[1] as string);
    text = `${text.slice(0, dotted.index)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const groups = (part: string) => (part === "" ? [] : part.split(":"));
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const all = tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill("0"), ...right];
  return all.reduce((sum, group) => (sum << 16n) | BigInt(Number.parseInt(group, 16)), 0n);
}
