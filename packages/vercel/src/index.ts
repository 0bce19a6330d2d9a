/**
 * @sandport/vercel: the Sandport runtime for Vercel Sandbox. The
 * `@vercel/sandbox` SDK is an optional peer dependency, loaded on first use;
 * importing this module loads nothing.
 *
 * @module
 */

export { vercelSandboxCapabilities } from "./capabilities.js";
export type { VercelSandboxHandle } from "./handle.js";
export type { VercelSandboxRuntimeOptions } from "./options.js";
export { DEFAULT_VERCEL_SANDBOX_TIMEOUTS } from "./options.js";
export { VercelSandboxRuntime } from "./vercel-sandbox-runtime.js";
