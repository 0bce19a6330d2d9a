/**
 * @sandport/freestyle: the Sandport runtime for Freestyle VMs. The `freestyle`
 * SDK (0.2.x) is an optional peer dependency, loaded on first use; importing
 * this module loads nothing.
 *
 * @module
 */

export { freestyleCapabilities } from "./capabilities.js";
export { FreestyleRuntime } from "./freestyle-runtime.js";
export type { FreestyleHandle } from "./handle.js";
export type { FreestylePersistence, FreestyleRuntimeOptions } from "./options.js";
export { DEFAULT_FREESTYLE_TIMEOUTS } from "./options.js";
