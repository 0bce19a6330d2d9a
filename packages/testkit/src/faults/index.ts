/**
 * @sandport/testkit/faults: the shared wire-fault suite. One call declares, as `node:test` tests,
 * the same injected faults (5xx, 429 with `Retry-After`, dropped connections, lost answers,
 * latency past the deadline) against an adapter and its emulator, asserting every error typed,
 * no hang past the deadline, and every sandbox destroyed or reported as a possible leak; and the
 * launch-reclaim suite (`describeLaunchReclaim`): a launch cut off by its deadline, an abort or a
 * dropped connection leaves no sandbox behind.
 *
 * @module
 */

export { describeWireFaults } from "./describe-wire-faults.js";
export type { LaunchReclaimSuiteOptions, LaunchReclaimTarget } from "./launch-reclaim.js";
export { describeLaunchReclaim } from "./launch-reclaim.js";
export type { Settled } from "./observe.js";
export { assertTyped, reportsPossibleLeak, settleWithin } from "./observe.js";
export type {
  SettlingRuntime,
  WireFaultAttempts,
  WireFaultCase,
  WireFaultOptions,
  WireFaultOutcomes,
  WireFaultRoutes,
} from "./options.js";
export { WIRE_FAULT_CASES } from "./options.js";
