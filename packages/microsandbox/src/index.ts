/**
 * @sandport/microsandbox: the Sandport runtime for microsandbox, on its cloud
 * backend or local microVMs. The `microsandbox` SDK (Node >= 22) is an
 * optional peer dependency, loaded on first use; importing this module loads
 * nothing, on any Node.
 *
 * @module
 */

export { microsandboxCapabilities } from "./capabilities.js";
export type { MicrosandboxHandle } from "./handle.js";
export type { MicrosandboxSdkSource } from "./internal/sdk.js";
export { MicrosandboxRuntime } from "./microsandbox-runtime.js";
export type { MicrosandboxBackend, MicrosandboxResources, MicrosandboxRuntimeOptions } from "./options.js";
export { DEFAULT_MICROSANDBOX_TIMEOUTS } from "./options.js";
