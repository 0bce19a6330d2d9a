/**
 * @sandport/langchain: any Sandport runtime as a LangChain deepagents
 * `BaseSandbox`. `deepagents` is an optional peer, loaded on first use.
 *
 * @module
 */

export { createDeepAgentsSandbox, type DeepAgentsSandboxOptions, type SandportDeepAgentsSandbox } from "./sandbox.js";
