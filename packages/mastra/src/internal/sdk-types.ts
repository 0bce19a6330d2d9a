import type * as Workspace from "@mastra/core/workspace";

/**
 * The values this package takes from `@mastra/core/workspace` at run time:
 * the base classes a sandbox and its process manager must extend (their
 * private members make them nominal), and Mastra's own errors. Typed from
 * the installed module, so a release that changes one stops the build.
 */
export type MastraWorkspaceModule = Pick<
  typeof Workspace,
  | "MastraSandbox"
  | "SandboxProcessManager"
  | "ProcessHandle"
  | "SandboxUnsupportedFeatureError"
  | "SandboxAbortError"
  | "FileNotFoundError"
  | "DirectoryNotFoundError"
  | "FileExistsError"
  | "IsDirectoryError"
  | "NotDirectoryError"
  | "DirectoryNotEmptyError"
  | "StaleFileError"
  | "PermissionError"
  | "WorkspaceReadOnlyError"
>;
