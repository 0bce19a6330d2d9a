import { type NetworkPolicy, parseNetworkRule, unsupported } from "@sandport/core";
import { PROVIDER } from "./handle.js";

/** Most entries Daytona takes in `networkAllowList`, and (separately) in `domainAllowList`. */
export const MAX_DAYTONA_LIST_ENTRIES = 10;

/**
 * A name Daytona's API accepts in `domainAllowList`: labels of letters, digits
 * and `-`, at least two, the last of two or more letters, optionally after one
 * leading `*.` (its `validateDomainAllowList`).
 */
const DAYTONA_DOMAIN = /^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,}$/;

/** The network fields of a Daytona create. */
export interface DaytonaNetworkFields {
  /** Always sent: with an allow list it is false (Daytona lets it override the lists). */
  readonly networkBlockAll: boolean;
  /** IPv4 CIDR ranges, comma-separated; present only for an allow list that has some. */
  readonly networkAllowList?: string;
  /** Names and `*.` wildcards, comma-separated; present only for an allow list that has some. */
  readonly domainAllowList?: string;
}

/**
 * The network fields for a validated policy (`fallback` is the runtime's
 * `network` option, used when the launch names none). `"none"` and an empty
 * allow list send `networkBlockAll: true`; an allow list sends its CIDR
 * ranges as `networkAllowList` and its names as `domainAllowList` (Daytona
 * allows what either list names, and nothing else). An entry Daytona cannot
 * express is refused with `UNSUPPORTED` naming it, before any request: an
 * IPv6 range, a name with a `:port` (Daytona's list has no ports), a name
 * outside Daytona's grammar, or more than 10 ranges or 10 names.
 */
export function networkFields(policy: NetworkPolicy | undefined, fallback: boolean): DaytonaNetworkFields {
  if (policy === undefined) return { networkBlockAll: !fallback };
  if (policy === "all" || policy === "none") return { networkBlockAll: policy === "none" };
  if (policy.allow.length === 0) return { networkBlockAll: true };
  const ranges: string[] = [];
  const names: string[] = [];
  for (const entry of policy.allow) {
    const rule = parseNetworkRule(entry);
    if (rule.kind === "cidr") {
      if (rule.family === 6) refuse(entry, "Daytona's networkAllowList takes IPv4 ranges only");
      ranges.push(entry);
    } else {
      if (rule.port !== undefined) refuse(entry, "Daytona's domainAllowList allows a name on every port, not one port");
      if (!DAYTONA_DOMAIN.test(entry)) {
        refuse(
          entry,
          "Daytona's domainAllowList takes names of two or more labels (letters, digits, '-'), the last of letters only",
        );
      }
      names.push(entry);
    }
  }
  if (ranges.length > MAX_DAYTONA_LIST_ENTRIES) {
    refuse(ranges[MAX_DAYTONA_LIST_ENTRIES] as string, "Daytona's networkAllowList holds at most 10 ranges");
  }
  if (names.length > MAX_DAYTONA_LIST_ENTRIES) {
    refuse(names[MAX_DAYTONA_LIST_ENTRIES] as string, "Daytona's domainAllowList holds at most 10 names");
  }
  return {
    networkBlockAll: false,
    ...(ranges.length === 0 ? {} : { networkAllowList: ranges.join(",") }),
    ...(names.length === 0 ? {} : { domainAllowList: names.join(",") }),
  };
}

/**
 * Refuses a launch whose created sandbox does not report the `domainAllowList`
 * it was asked for: an SDK older than 0.216 drops the field from its create
 * request, which would leave the sandbox with more network than asked. The
 * caller destroys the sandbox.
 */
export function refuseDroppedDomainList(asked: string | undefined, reported: unknown): void {
  if (asked === undefined || reported === asked) return;
  throw unsupported(
    PROVIDER,
    "network allow lists with domain names on this Daytona SDK",
    `the sandbox was created without domainAllowList (it reports ${JSON.stringify(reported ?? null)}): the SDK is older than 0.216, which sends it; the sandbox was deleted`,
  );
}

function refuse(entry: string, reason: string): never {
  throw unsupported(PROVIDER, `the network allow list entry ${JSON.stringify(entry)}`, reason);
}
