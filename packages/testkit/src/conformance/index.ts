/**
 * The shared conformance suite: one call declares, as `node:test` tests, every
 * check a Sandport runtime must pass, with capability-driven skips.
 *
 * @module
 */

export type { ConformanceCheckId } from "./checks.js";
export { CONFORMANCE_CHECKS } from "./checks.js";
export { describeRuntimeConformance } from "./describe-runtime-conformance.js";
export { CONFORMANCE_EGRESS_NAMES, conformanceEgressResolver } from "./egress-probe.js";
export type {
  ConformanceContext,
  ConformanceTimeouts,
  RuntimeConformanceOptions,
  RuntimeFixture,
} from "./options.js";
export { DEFAULT_TIMEOUTS } from "./suite.js";
export type { TypoProbe } from "./typo-refusals.js";
export { assertTyposRefused } from "./typo-refusals.js";
