/**
 * E2B's egress rules on create (`allow_internet_access`, `network.allowOut`,
 * `network.denyOut`): read and validated as the API documents them, and turned
 * into the port policy the backend sandbox is launched with, which the backend
 * (a `LocalRuntime`'s allowlist proxy) enforces.
 *
 * @module
 */

import { isIP } from "node:net";
import { type NetworkPolicy, validateNetworkPolicy } from "@sandport/core";
import type { Exchange } from "../harness/exchange.js";
import { badRequest, validationError } from "./control-plane-json.js";

/** E2B's "all traffic" range (the SDK's `ALL_TRAFFIC`). */
export const ALL_TRAFFIC = "0.0.0.0/0";
/** The nameserver E2B allows whenever a domain is in `allowOut`, so that names resolve. */
export const E2B_NAMESERVER = "8.8.8.8";

/** One sandbox's egress rules, as its create sent them. */
export interface E2BEgress {
  /** `allow_internet_access` (default `true`). */
  readonly allowInternetAccess: boolean;
  /** `network.allowOut`, when sent. */
  readonly allowOut?: readonly string[];
  /** `network.denyOut`, when sent. */
  readonly denyOut?: readonly string[];
}

const LABEL = /^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?$/i;

/** Whether `entry` is an IPv4 address or IPv4 CIDR block. */
function isIpv4Target(entry: string): boolean {
  const [address = "", length, ...rest] = entry.split("/");
  if (rest.length > 0 || isIP(address) !== 4) return false;
  return length === undefined || (/^[0-9]{1,2}$/.test(length) && Number(length) <= 32);
}

/** Whether `entry` is a domain name, optionally with a leading `*.`. */
function isDomainTarget(entry: string): boolean {
  const name = entry.startsWith("*.") ? entry.slice(2) : entry;
  const labels = name.split(".");
  return name.length > 0 && name.length <= 253 && labels.every((label) => LABEL.test(label)) && isIP(name) === 0;
}

/**
 * Reads `network.allowOut` or `network.denyOut`: an array of strings (the
 * OpenAPI validator's messages otherwise), each an IPv4 address or CIDR block,
 * or in `allowOut` also a domain name or `*.` wildcard. Answers 400 and
 * returns `false` for anything else; `undefined` when the field is absent.
 */
function readList(
  exchange: Exchange,
  network: Record<string, unknown>,
  field: "allowOut" | "denyOut",
): readonly string[] | undefined | false {
  const value = network[field];
  if (value === undefined) return undefined;
  const at = `/network/${field}`;
  if (!Array.isArray(value)) {
    validationError(
      exchange,
      `request body has an error: doesn't match schema: Error at "${at}": value must be an array`,
    );
    return false;
  }
  for (const [index, entry] of value.entries()) {
    if (typeof entry !== "string") {
      validationError(
        exchange,
        `request body has an error: doesn't match schema: Error at "${at}/${index}": value must be a string`,
      );
      return false;
    }
    if (field === "denyOut" && !isIpv4Target(entry)) {
      badRequest(exchange, `invalid denyOut entry "${entry}": only IP addresses and CIDR blocks are supported`);
      return false;
    }
    if (field === "allowOut" && !isIpv4Target(entry) && !isDomainTarget(entry)) {
      badRequest(exchange, `invalid allowOut entry "${entry}": expected an IP address, a CIDR block or a domain name`);
      return false;
    }
  }
  return value as string[];
}

/**
 * Reads the egress fields of a create body (`network` already checked to be
 * an object). Answers 400 and returns `undefined` when one is invalid.
 */
export function readEgress(
  exchange: Exchange,
  body: Record<string, unknown>,
  network: Record<string, unknown>,
): E2BEgress | undefined {
  const allowOut = readList(exchange, network, "allowOut");
  if (allowOut === false) return undefined;
  const denyOut = readList(exchange, network, "denyOut");
  if (denyOut === false) return undefined;
  return {
    allowInternetAccess: body.allow_internet_access !== false,
    ...(allowOut === undefined ? {} : { allowOut }),
    ...(denyOut === undefined ? {} : { denyOut }),
  };
}

/**
 * The port policy that enforces `egress` on the backend sandbox; throws,
 * saying why, when the backend cannot (the create then fails with a 500). Allowed entries win over denied ones (E2B's
 * rule), and `allow_internet_access: false` is `denyOut: ["0.0.0.0/0"]`:
 *
 * - nothing denied: `"all"`;
 * - everything denied: `"none"` without `allowOut`, else `{ allow }` with each
 *   address as a `/32` range, and 8.8.8.8 when a domain is listed;
 * - some ranges denied but not all: a deny list, which the backend cannot enforce.
 */
export function backendPolicy(egress: E2BEgress): NetworkPolicy {
  const denyOut = egress.denyOut ?? [];
  const denyAll = !egress.allowInternetAccess || denyOut.includes(ALL_TRAFFIC);
  if (!denyAll) {
    if (denyOut.length === 0) return "all";
    throw new Error(
      `denyOut ${JSON.stringify(denyOut)} without ${ALL_TRAFFIC} is a deny list, which the emulator's backend cannot enforce`,
    );
  }
  const allowOut = egress.allowOut ?? [];
  if (allowOut.length === 0) return "none";
  const entries = allowOut.map((entry) => (isIP(entry) === 4 ? `${entry}/32` : entry.toLowerCase()));
  const nameserver = allowOut.some(isDomainTarget) ? [`${E2B_NAMESERVER}/32`] : [];
  return validateNetworkPolicy({ allow: [...new Set([...entries, ...nameserver])] }) as NetworkPolicy;
}
