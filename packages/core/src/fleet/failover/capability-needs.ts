import { isAbsence } from "../../capabilities/absence.js";
import {
  type CapabilityName,
  DECLARED_CAPABILITIES,
  MODE_NAMES,
  STRUCTURAL_CAPABILITIES,
} from "../../capabilities/capability-names.js";
import type { ResolvedCapabilities } from "../../capabilities/resolved-capabilities.js";
import { invalidRequest } from "../../errors/factories.js";
import type { LaunchSpec } from "../../port/launch-spec.js";
import { parseNetworkRule } from "../../validation/network-policy.js";

/** A capability a workload uses, and what in it uses it. */
export interface CapabilityNeed {
  /** The capability, as `resolveCapabilities` names it. */
  readonly capability: CapabilityName;
  /** What needs it, e.g. `"launch.ports"`, `"launch.network allow list with domain names"`. */
  readonly because: string;
}

/** A need with the test a resolved value must pass. */
interface Requirement extends CapabilityNeed {
  readonly accepts: (value: unknown) => boolean;
}

const available = (value: unknown) => value !== undefined && !isAbsence(value);

/** Every capability name `resolveCapabilities` answers. */
const CAPABILITY_NAMES: readonly string[] = [...STRUCTURAL_CAPABILITIES, ...DECLARED_CAPABILITIES, ...MODE_NAMES];

/**
 * Refuses (`INVALID_REQUEST`) a `requires` list that is not an array of
 * capability names, naming the `field` it came from.
 */
export function validateRequires(requires: unknown, field: string): readonly CapabilityName[] {
  if (requires === undefined) return [];
  if (!Array.isArray(requires)) throw invalidRequest(`${field} must be an array of capability names`, { field });
  for (const name of requires) {
    if (typeof name !== "string" || !CAPABILITY_NAMES.includes(name)) {
      throw invalidRequest(`${field}: ${JSON.stringify(name)} is not a capability name`, { field });
    }
  }
  return requires as CapabilityName[];
}

/**
 * What a launch uses that not every runtime has, read from the (validated)
 * spec, plus what the caller says it will use (`requires`, e.g. `ports` or
 * `streaming` for a session): ports, a snapshot to start from, a network
 * policy (an allow list needs one the runtime enforces), resource limits.
 */
function requirements(spec: LaunchSpec, requires: readonly CapabilityName[]): Requirement[] {
  const needs: Requirement[] = [];
  if (spec.ports !== undefined && spec.ports.length > 0) {
    needs.push({ capability: "ports", because: "launch.ports", accepts: (value) => value === true });
  }
  if (spec.from !== undefined) {
    needs.push({ capability: "snapshots", because: "launch.from", accepts: (value) => value === true });
  }
  if (spec.network !== undefined) needs.push(networkRequirement(spec.network));
  const limits = [
    ["memoryMiB", "memoryLimit"],
    ["cpus", "cpuLimit"],
    ["maxProcesses", "processLimit"],
    ["diskMiB", "diskLimit"],
  ] as const;
  for (const [field, capability] of limits) {
    if (spec.resources?.[field] === undefined) continue;
    // `unknown` (passed on to the provider, never seen holding) is not enough: moving must not loosen a limit.
    needs.push({ capability, because: `launch.resources.${field}`, accepts: (value) => value === true });
  }
  for (const capability of requires) needs.push({ capability, because: "requires", accepts: available });
  return needs;
}

function networkRequirement(network: NonNullable<LaunchSpec["network"]>): Requirement {
  if (typeof network !== "object") {
    // A runtime with an absence has one policy its documentation names, not a choice per launch.
    return { capability: "networkPolicy", because: `launch.network ${JSON.stringify(network)}`, accepts: available };
  }
  const domains = network.allow.some((entry) => parseNetworkRule(entry).kind === "domain");
  return domains
    ? {
        capability: "networkPolicy",
        because: "launch.network allow list with domain names",
        accepts: (value) => value === "domains",
      }
    : {
        capability: "networkPolicy",
        because: "launch.network allow list",
        accepts: (value) => value === "domains" || value === "cidr",
      };
}

/** What a launch of `spec` (and the caller's `requires`) uses: see {@link unmetNeeds}. */
export function capabilityNeeds(spec: LaunchSpec, requires: readonly CapabilityName[] = []): CapabilityNeed[] {
  return requirements(spec, requires).map(({ capability, because }) => ({ capability, because }));
}

/**
 * The needs of a launch of `spec` (plus `requires`) that a runtime with these
 * resolved capabilities does not meet; empty when it has every one. A
 * structural or declared capability must be `true`; a mode must be a value
 * (not an absence), and for a network allow list one that enforces it.
 */
export function unmetNeeds(
  resolved: ResolvedCapabilities,
  spec: LaunchSpec,
  requires: readonly CapabilityName[] = [],
): CapabilityNeed[] {
  return requirements(spec, requires)
    .filter((need) => !need.accepts(resolved[need.capability]))
    .map(({ capability, because }) => ({ capability, because }));
}
