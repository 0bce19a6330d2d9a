/**
 * Daytona's egress rules on a create: `networkAllowList` (IPv4 CIDR ranges)
 * and `domainAllowList` (names, `*.` wildcards), validated as the API's
 * `validateNetworkAllowList` / `validateDomainAllowList` do, and the port
 * policy the backend sandbox is launched with to enforce them.
 *
 * @module
 */

import { isIPv4 } from "node:net";
import type { NetworkPolicy } from "@sandport/core";
import { BadRequestError } from "./request-body.js";

/** Most entries either list may hold. */
const MAX_ENTRIES = 10;
/** The API's domain grammar: labels of letters, digits and `-`, optionally one leading `*.`, a last label of letters. */
const DOMAIN = /^(\*\.)?([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\.)+[a-zA-Z]{2,}$/;

/** The entries of a comma-separated list, trimmed, empty ones skipped (as the API does). */
function entries(list: string): string[] {
  return list
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0);
}

/** Validates `networkAllowList`; returns it as sent (absent or empty: none). */
export function readNetworkAllowList(list: string | undefined): string | undefined {
  if (list === undefined || entries(list).length === 0) return undefined;
  for (const network of entries(list)) {
    const [address = "", prefix] = network.split("/");
    if (!isIPv4(address)) {
      throw new BadRequestError(
        `Invalid IP address: "${address}" in network "${network}". Must be a valid IPv4 address`,
      );
    }
    if (!prefix)
      throw new BadRequestError(`Invalid network format: "${network}". Missing CIDR prefix length (e.g., /24)`);
    const length = Number.parseInt(prefix, 10);
    if (!(length >= 0 && length <= 32)) {
      throw new BadRequestError(`Invalid CIDR prefix length: ${network}. Prefix must be between 0 and 32`);
    }
  }
  if (list.split(",").length > MAX_ENTRIES) {
    throw new BadRequestError("Network allow list cannot contain more than 10 networks");
  }
  return list;
}

/** Validates `domainAllowList`; returns it as sent (absent or empty: none). */
export function readDomainAllowList(list: string | undefined): string | undefined {
  if (list === undefined || entries(list).length === 0) return undefined;
  for (const domain of entries(list)) {
    if (!DOMAIN.test(domain)) throw new BadRequestError(`Invalid domain: "${domain}". Must be a valid domain name`);
  }
  if (list.split(",").length > MAX_ENTRIES) {
    throw new BadRequestError("Domain allow list cannot contain more than 10 domains");
  }
  return list;
}

/**
 * The port policy that enforces a sandbox's rules on the backend:
 * `networkBlockAll` wins over the lists (Daytona's rule); with a list, only
 * what the lists name (a range as its network address, since the API accepts
 * `192.168.1.0/16`); without one, everything.
 */
export function backendNetwork(rules: {
  readonly networkBlockAll: boolean;
  readonly networkAllowList: string | undefined;
  readonly domainAllowList: string | undefined;
}): NetworkPolicy {
  if (rules.networkBlockAll) return "none";
  if (rules.networkAllowList === undefined && rules.domainAllowList === undefined) return "all";
  return {
    allow: [
      ...entries(rules.networkAllowList ?? "").map(networkAddress),
      ...entries(rules.domainAllowList ?? "").map((domain) => domain.toLowerCase()),
    ],
  };
}

/** `a.b.c.d/n` with the bits below the prefix cleared. */
function networkAddress(range: string): string {
  const [address = "", prefix = ""] = range.split("/");
  const length = Number.parseInt(prefix, 10);
  const value = address.split(".").reduce((sum, part) => sum * 256 + Number(part), 0);
  const network = length === 0 ? 0 : value - (value % 2 ** (32 - length));
  const octets = [24, 16, 8, 0].map((shift) => Math.floor(network / 2 ** shift) % 256);
  return `${octets.join(".")}/${length}`;
}
