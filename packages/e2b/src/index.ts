/**
 * @sandport/e2b: the Sandport runtime for E2B sandboxes. The `e2b` SDK is an
 * optional peer dependency, loaded on first use; importing this module loads nothing.
 *
 * @module
 */

export { e2bCapabilities } from "./capabilities.js";
export { E2BRuntime } from "./e2b-runtime.js";
export type { E2BHandle } from "./handle.js";
export type { E2BRuntimeOptions } from "./options.js";
export { DEFAULT_E2B_TIMEOUTS } from "./options.js";
