import type { LaunchSpec, SandboxHandle, SandboxRuntime } from "@sandport/core";

/** Label carrying the Mastra sandbox `id` a Sandport sandbox was launched for: `start()` finds it again by it. */
export const SANDBOX_ID_LABEL = "mastra/sandbox-id";

/** What {@link createMastraSandbox} needs. */
export interface MastraSandboxOptions<H extends SandboxHandle = SandboxHandle> {
  /** The runtime to run on. */
  readonly runtime: SandboxRuntime<H>;
  /**
   * The Mastra sandbox id. `start()` adopts the sandbox labelled with it when
   * the runtime can search labels, else launches one carrying it. Default: a random id.
   */
  readonly id?: string;
  /** An existing sandbox to use instead: `start()` adopts it, and `destroy()` destroys it. */
  readonly handle?: H;
  /** What a new sandbox is launched with (its labels are kept beside the id label). Default: the runtime's defaults. */
  readonly launch?: LaunchSpec;
  /**
   * Where commands start when they name no `cwd`, and what a relative `cwd`
   * resolves against: absolute inside the workspace, or relative to the
   * runtime's `workspaceRoot`. Default: the `workspaceRoot`.
   */
  readonly workingDirectory?: string;
  /** Environment for every command and process, below each call's own `env` (Mastra's `setEnv` overlay). */
  readonly env?: Record<string, string>;
  /** Kills a command after this many milliseconds when the call sets no `timeout`. Default: the runtime's run budget. */
  readonly commandTimeoutMs?: number;
}
