/**
 * @sandport/local: the embedded Sandport runtime. A sandbox is a directory on
 * this machine; commands are real processes, isolated with Linux namespaces
 * (bubblewrap) by default, or, on explicit opt-in, plain host processes.
 *
 * @module
 */

export { localCapabilities } from "./capabilities.js";
export { COMMAND_MARKER_VARIABLE } from "./command-marker.js";
export { DEFAULT_PATH } from "./environment.js";
export type { LocalHandle } from "./handle.js";
export { LocalRuntime } from "./local-runtime.js";
export type { CgroupUsage, LocalIsolation, LocalRuntimeOptions, SandboxUser } from "./options.js";
export {
  DEFAULT_BWRAP_PATH,
  DEFAULT_KILL_GRACE_MS,
  DEFAULT_MAX_OUTPUT_BYTES,
  DEFAULT_OPERATION_TIMEOUT_MS,
  DEFAULT_OWNER,
  DEFAULT_RUN_BUDGET_MS,
  DEFAULT_SANDBOX_USER,
  LOCAL_PROVIDER,
  LOCAL_WORKSPACE_ROOT,
  ROOT_USER_DEFAULT_ROOT,
} from "./options.js";
