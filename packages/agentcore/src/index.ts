/**
 * @sandport/agentcore: the Sandport runtime for AWS Bedrock AgentCore Code
 * Interpreter sessions. `@aws-sdk/client-bedrock-agentcore` is an optional
 * peer dependency, loaded on first use; importing this module loads nothing.
 *
 * @module
 */

export { AgentCoreRuntime } from "./agentcore-runtime.js";
export { agentCoreCapabilities } from "./capabilities.js";
export type { AgentCoreHandle } from "./handle.js";
export type { AgentCoreRuntimeOptions } from "./options.js";
export { DEFAULT_AGENTCORE_TIMEOUTS } from "./options.js";
