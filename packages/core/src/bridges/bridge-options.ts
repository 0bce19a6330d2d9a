import { posix } from "node:path";
import type { SandboxHandle } from "../port/sandbox-handle.js";
import type { SandboxRuntime } from "../port/sandbox-runtime.js";

/** What every framework bridge is built from: the runtime, where commands start, how long they may run. */
export interface BridgeOptions<H extends SandboxHandle = SandboxHandle> {
  /** The runtime to run on: any Sandport runtime. */
  readonly runtime: SandboxRuntime<H>;
  /**
   * Where commands start when they name no working directory, and what a
   * relative working directory (and, where the bridge says so, a relative
   * path) resolves against: absolute inside the workspace, or relative to the
   * runtime's `workspaceRoot`. Default: the `workspaceRoot`. Not created.
   */
  readonly workingDirectory?: string;
  /**
   * Kills a command after this many milliseconds when the framework's call
   * sets no limit; its exit status is then 124 (see `exitStatus`). Default:
   * the runtime's run budget.
   */
  readonly commandTimeoutMs?: number;
}

/** The absolute directory {@link BridgeOptions.workingDirectory} names. */
export function bridgeBaseDirectory(options: Pick<BridgeOptions, "runtime" | "workingDirectory">): string {
  const root = options.runtime.workspaceRoot;
  return options.workingDirectory === undefined ? root : posix.resolve(root, options.workingDirectory);
}
