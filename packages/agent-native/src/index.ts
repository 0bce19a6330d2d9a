/**
 * @sandport/agent-native: any Sandport runtime as the `SandboxAdapter` of
 * agent-native's `run-code` tool. Nothing of agent-native is imported: its
 * seam is a plain interface.
 *
 * @module
 */

export { DEFAULT_TUNNEL_PORT, SandportSandboxAdapter, type SandportSandboxAdapterOptions } from "./adapter.js";
export type { AgentNativeRunRequest, AgentNativeRunResult, AgentNativeSandboxAdapter } from "./adapter-types.js";
