/**
 * @sandport/daytona: the Sandport runtime for Daytona sandboxes. The Daytona
 * SDK (`@daytona/sdk`, or `@daytonaio/sdk` under its old name) is an optional
 * peer dependency, loaded on first use; importing this module loads nothing.
 *
 * @module
 */

export { daytonaCapabilities } from "./capabilities.js";
export { DaytonaRuntime } from "./daytona-runtime.js";
export type { DaytonaHandle } from "./handle.js";
export type { DaytonaResources, DaytonaRuntimeOptions, DaytonaVolume } from "./options.js";
export { DEFAULT_DAYTONA_TIMEOUTS } from "./options.js";
export type { DaytonaSandboxDetails } from "./sandbox-details.js";
