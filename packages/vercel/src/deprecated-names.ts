// The package's names before the rename to the `<P>Runtime` pattern every other provider
// follows (`E2BRuntime`, `DaytonaRuntime`, ...), kept as aliases so existing code still
// builds. Each is deprecated; each alias is defined beside the name it stands for.

export { vercelSandboxCapabilities } from "./capabilities.js";
export type { VercelSandboxHandle } from "./handle.js";
export { DEFAULT_VERCEL_SANDBOX_TIMEOUTS, type VercelSandboxRuntimeOptions } from "./options.js";
export { VercelSandboxRuntime } from "./vercel-runtime.js";
