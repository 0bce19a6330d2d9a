/**
 * @sandport/tanstack-ai: any Sandport runtime as a TanStack AI sandbox
 * provider, for `defineSandbox({ provider: sandportSandboxProvider({ runtime }) })`.
 * `@tanstack/ai-sandbox` is an optional peer: importing this loads nothing;
 * the provider loads it on first use.
 *
 * @module
 */

export { tanstackCapabilities } from "./capabilities.js";
export { SandportSandboxHandle } from "./handle.js";
export { SANDBOX_ID_LABEL, type SandportSandboxProviderOptions } from "./options.js";
export { sandportSandboxProvider } from "./provider.js";
export { SNAPSHOT_LABEL } from "./snapshots.js";
