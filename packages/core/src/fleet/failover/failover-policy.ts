import type { SandportErrorCode } from "../../errors/error-code.js";
import { invalidRequest } from "../../errors/factories.js";
import { keyList, refuseUnknownShape } from "../../validation/known-keys.js";

/** The codes a launch may move to another runtime on: each says the provider did not give a sandbox. */
export const FAILOVER_CODES = Object.freeze(["PROVIDER_UNAVAILABLE", "RATE_LIMITED", "DEADLINE_EXCEEDED"] as const);

/** One of {@link FAILOVER_CODES}. */
export type FailoverCode = (typeof FAILOVER_CODES)[number];

/**
 * When an orchestrator given several runtimes moves a launch from one to the
 * next. A launch moves only while no sandbox exists: a failure with one of
 * the `on` codes, whose launch provably made nothing (refused, never sent, or
 * reconciled on its runtime with nothing kept). Everything else stays where it is.
 */
export interface FailoverPolicy {
  /** The codes that move a launch. Default: all of {@link FAILOVER_CODES}. */
  readonly on?: readonly FailoverCode[];
}

/** Every key of {@link FailoverPolicy}. */
export const FAILOVER_POLICY_KEYS = keyList<FailoverPolicy>({ on: true });

/**
 * The codes `policy` moves a launch on, refusing (`INVALID_REQUEST`) a policy
 * with an unknown key or an `on` that is not a list of {@link FAILOVER_CODES}.
 */
export function failoverCodes(policy: FailoverPolicy | undefined): ReadonlySet<SandportErrorCode> {
  if (policy === undefined) return new Set(FAILOVER_CODES);
  refuseUnknownShape(policy, FAILOVER_POLICY_KEYS, "SandboxOrchestrator options failover");
  if (policy.on === undefined) return new Set(FAILOVER_CODES);
  if (!Array.isArray(policy.on)) throw invalidRequest("failover.on must be an array of error codes", { field: "on" });
  for (const code of policy.on) {
    if (!FAILOVER_CODES.includes(code)) {
      throw invalidRequest(`failover.on: ${JSON.stringify(code)} is not one of ${FAILOVER_CODES.join(", ")}`, {
        field: "on",
      });
    }
  }
  return new Set(policy.on);
}
