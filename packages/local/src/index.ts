/**
 * @sandport/local: the embedded Sandport runtime. A sandbox is a directory on
 * this machine; commands are real processes, isolated with Linux namespaces
 * (bubblewrap) by default, or, on explicit opt-in, plain host processes.
 *
 * @module
 */

export { localCapabilities } from "./capabilities.js";
export type { LocalDefaultResources } from "./default-resources.js";
export { DEFAULT_RESOURCES } from "./default-resources.js";
export type { LocalHandle } from "./handle.js";
export { LocalRuntime } from "./local-runtime.js";
export type {
  CgroupUsage,
  LocalIsolation,
  LocalRuntimeOptions,
  NamespaceScope,
  SandboxUser,
  UidRange,
} from "./options.js";
export { DEFAULT_LOCAL_TIMEOUTS, DEFAULT_SANDBOX_UIDS, DEFAULT_UID_MARKERS, LOCAL_WORKSPACE_ROOT } from "./options.js";
export { COMMAND_MARKER_VARIABLE } from "./processes/command-marker.js";
export type { DefaultResourcesReport } from "./sandboxes/launch-resources.js";
export type {
  Leftover as LocalLeftover,
  LeftoverKind as LocalLeftoverKind,
  LeftoverReport as LocalLeftoverReport,
} from "./store/leftover-report.js";
