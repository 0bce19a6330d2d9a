/**
 * @sandport/vercel: the Sandport runtime for Vercel Sandbox. The
 * `@vercel/sandbox` SDK is an optional peer dependency, loaded on first use;
 * importing this module loads nothing.
 *
 * @module
 */

export { vercelCapabilities } from "./capabilities.js";
// The names before the rename to the `<P>Runtime` pattern every other provider follows, all deprecated.
export * from "./deprecated-names.js";
export type { VercelHandle } from "./handle.js";
export type { VercelRuntimeOptions } from "./options.js";
export { DEFAULT_VERCEL_TIMEOUTS } from "./options.js";
export { VercelRuntime } from "./vercel-runtime.js";
