import { keyList } from "../validation/known-keys.js";

/**
 * Where a sandbox's commands may connect to.
 *
 * - `"none"`: nowhere.
 * - `"all"`: anywhere the runtime's network reaches.
 * - `{ allow }`: only the listed destinations (see {@link NetworkAllowList}).
 *
 * `LaunchSpec.network` also takes `true` (= `"all"`) and `false` (= `"none"`).
 * A runtime that cannot enforce a policy refuses it with `UNSUPPORTED` before
 * anything is created; a policy is never silently widened. Which policies a
 * runtime enforces is its `networkPolicy` capability.
 */
export type NetworkPolicy = "none" | "all" | NetworkAllowList;

/**
 * An allow list: every other destination is refused. Each entry is one of:
 *
 * - a domain name, `example.com` (that name only) or `*.example.com` (any name
 *   below it, not the name itself), optionally with `:port` (e.g.
 *   `api.example.com:443`; without one, every port);
 * - a CIDR range, IPv4 (`203.0.113.0/24`) or IPv6 (`2001:db8::/32`); a single
 *   address is written with its full prefix (`/32`, `/128`).
 *
 * Names are compared case-insensitively. An empty list allows nothing.
 */
export interface NetworkAllowList {
  /** The allowed destinations; see {@link NetworkAllowList}. */
  readonly allow: readonly string[];
}

/** Every key a {@link NetworkAllowList} may have; any other is refused with `INVALID_REQUEST`. */
export const NETWORK_ALLOW_LIST_KEYS = keyList<NetworkAllowList>({ allow: true });
