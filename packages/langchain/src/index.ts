/**
 * @sandport/langchain: any Sandport runtime as a LangChain deepagents
 * `BaseSandbox`. `deepagents` is an optional peer, loaded on first use.
 *
 * @module
 */

export type { SandportDeepAgentsSandboxErrorCode } from "./lifecycle-error.js";
export {
  createDeepAgentsSandbox,
  type DeepAgentsSandboxOptions,
  loadDeepAgentsSandboxClass,
  type SandportDeepAgentsSandbox,
  type SandportDeepAgentsSandboxClass,
} from "./sandbox.js";
