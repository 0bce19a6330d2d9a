/**
 * @sandport/mastra: any Sandport runtime inside Mastra. A `WorkspaceSandbox`
 * (commands, a process manager over interactive or async exec, port URLs)
 * and a `WorkspaceFilesystem` over the same sandbox's files, for
 * `new Workspace({ sandbox, filesystem })`. `@mastra/core` is an optional
 * peer: importing this loads nothing; `createMastraSandbox` loads it.
 *
 * @module
 */

export { createMastraFilesystem } from "./filesystem.js";
export type { MastraFilesystemOptions } from "./filesystem-options.js";
export type { MastraSandboxOptions } from "./options.js";
export { SANDBOX_ID_LABEL } from "./options.js";
export type { SandportWorkspaceSandbox } from "./sandbox.js";
export { createMastraSandbox } from "./sandbox.js";
