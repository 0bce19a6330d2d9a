/**
 * @sandport/agent37: the Sandport runtime for Agent37 instances. Agent37
 * publishes no JavaScript library; the runtime speaks its HTTP API over the
 * `fetch` it is given, and depends on nothing but `@sandport/core`.
 *
 * @module
 */

export { Agent37Runtime } from "./agent37-runtime.js";
export { agent37Capabilities } from "./capabilities.js";
export type { Agent37Handle } from "./handle.js";
export type { InstanceAuthHeader } from "./internal/sdk.js";
export type { Agent37RuntimeOptions } from "./options.js";
export { DEFAULT_AGENT37_TIMEOUTS } from "./options.js";
