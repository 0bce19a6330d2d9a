import type { Absence } from "../capabilities/absence.js";
import type { NetworkPolicyMode } from "../capabilities/modes.js";
import { unsupported } from "../errors/factories.js";
import type { NetworkPolicy } from "../port/network-policy.js";
import { parseNetworkRule } from "../validation/network-policy.js";

/**
 * Refuses a validated network policy the runtime's declared `networkPolicy`
 * cannot enforce, with `UNSUPPORTED` (`details.feature` says what): an allow
 * list where the runtime enforces none (`all-or-none` or an absence), a domain
 * entry where it enforces CIDR ranges only. `"all"` and `"none"` pass here: a
 * runtime that has only one of them (declared as an absence) refuses the other
 * itself. Runs before any request, so a refused policy creates nothing; never
 * widens a policy into one the runtime can enforce.
 */
export function refuseUnenforceableNetwork(
  policy: NetworkPolicy | undefined,
  support: NetworkPolicyMode | Absence,
  provider: string,
): void {
  if (policy === undefined || typeof policy === "string" || support === "domains") return;
  if (support === "cidr") {
    const domain = policy.allow.find((entry) => parseNetworkRule(entry).kind === "domain");
    if (domain === undefined) return;
    throw unsupported(
      provider,
      "network allow lists with domain names",
      `it enforces CIDR ranges only, and ${JSON.stringify(domain)} is a domain`,
    );
  }
  throw unsupported(
    provider,
    "network allow lists",
    support === "all-or-none"
      ? 'it enforces only network "all" or "none"; the allow list is refused rather than widened'
      : `its network policy is ${support}; the allow list is refused rather than widened`,
  );
}

/**
 * Whether a launch has the network, for a runtime that enforces only `"all"`
 * or `"none"`: `policy` as validated (`validateLaunchSpec`), else the
 * runtime's default. An allow list is refused with `UNSUPPORTED` (normally
 * already refused by {@link refuseUnenforceableNetwork}), never read as `"all"`.
 */
export function networkEnabled(policy: NetworkPolicy | undefined, fallback: boolean, provider: string): boolean {
  if (policy === undefined) return fallback;
  if (policy === "all") return true;
  if (policy === "none") return false;
  throw unsupported(provider, "network allow lists", 'it enforces only network "all" or "none"');
}
