/**
 * @sandport/openai-agents: any Sandport runtime as the sandbox of an OpenAI
 * Agents `SandboxAgent`. `@openai/agents-core` is an optional peer, loaded on
 * first use.
 *
 * @module
 */

export { SandportSandboxClient, type SandportSandboxClientOptions } from "./client.js";
export { SandportEditor } from "./editor.js";
export {
  SandportSandboxSession,
  type SandportSandboxSessionOptions,
  type SandportSessionState,
} from "./session.js";
export {
  SANDPORT_SNAPSHOT_TYPE,
  type SandportSnapshot,
  type SandportSnapshotSpec,
  SNAPSHOT_SANDBOX_LABEL,
  sandportSnapshot,
} from "./snapshots.js";
