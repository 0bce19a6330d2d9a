import type { SandboxHandle, SandboxRuntime } from "@sandport/core";

/** What {@link createSandboxSession} needs. */
export interface SandboxSessionOptions<H extends SandboxHandle = SandboxHandle> {
  /** The runtime the sandbox lives on: any Sandport runtime. */
  readonly runtime: SandboxRuntime<H>;
  /** The sandbox, from `runtime.launch` or `runtime.getById`. The session never destroys it. */
  readonly handle: H;
  /**
   * The session's base directory: relative paths of every member (and the
   * `workingDirectory` of `run` and `spawn`) resolve against it, and commands
   * start in it. Absolute (inside the workspace) or relative to the
   * runtime's `workspaceRoot`. Default: the `workspaceRoot`. The directory is
   * not created.
   */
  readonly workingDirectory?: string;
  /** The session's `description`, for the agent's instructions. Default: one naming the provider and the base directory. */
  readonly description?: string;
  /**
   * Kills a `run` or `spawn` command after this many milliseconds (its exit
   * code is then 124). Default: the runtime's run budget.
   */
  readonly commandTimeoutMs?: number;
}
