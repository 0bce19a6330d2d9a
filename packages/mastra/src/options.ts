import { BRIDGE_OPTION_SHAPE, type BridgeOptions, keyList, type LaunchSpec, type SandboxHandle } from "@sandport/core";

/** Label carrying the Mastra sandbox `id` a Sandport sandbox was launched for: `start()` finds it again by it. */
export const SANDBOX_ID_LABEL = "mastra/sandbox-id";

/** What {@link createMastraSandbox} needs; `workingDirectory` is where commands without a `cwd` start. */
export interface MastraSandboxOptions<H extends SandboxHandle = SandboxHandle> extends BridgeOptions<H> {
  /**
   * The Mastra sandbox id. `start()` adopts the sandbox labelled with it when
   * the runtime can search labels, else launches one carrying it. Default: a random id.
   */
  readonly id?: string;
  /** An existing sandbox to use instead: `start()` adopts it, and `destroy()` destroys it. */
  readonly handle?: H;
  /** What a new sandbox is launched with (its labels are kept beside the id label). Default: the runtime's defaults. */
  readonly launch?: LaunchSpec;
  /** Environment for every command and process, below each call's own `env` (Mastra's `setEnv` overlay). */
  readonly env?: Record<string, string>;
  /**
   * As Mastra's LocalSandbox's: the named checkpoint a freshly launched
   * sandbox starts from and `snapshot()` persists to, kept in the runtime's
   * snapshots (labelled `mastra/checkpoint=<name>`). A runtime without
   * snapshots refuses it (`SandboxUnsupportedFeatureError`).
   */
  readonly checkpointName?: string;
  /** A checkpoint a fresh launch starts from when `checkpointName` has none yet; never written. */
  readonly seedCheckpointName?: string;
}

/** Every key of {@link MastraSandboxOptions}; any other is refused, naming the nearest known one. */
export const MASTRA_SANDBOX_OPTION_KEYS = keyList<MastraSandboxOptions>({
  ...BRIDGE_OPTION_SHAPE,
  id: true,
  handle: true,
  launch: true,
  env: true,
  checkpointName: true,
  seedCheckpointName: true,
});
