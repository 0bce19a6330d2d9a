import { BRIDGE_OPTION_SHAPE, type BridgeOptions, keyList, type SandboxHandle } from "@sandport/core";

/**
 * What {@link createSandboxSession} needs. Its `workingDirectory` is the
 * session's fixed base directory: the relative paths of every member (and the
 * `workingDirectory` of `run` and `spawn`) resolve against it.
 */
export interface SandboxSessionOptions<H extends SandboxHandle = SandboxHandle> extends BridgeOptions<H> {
  /** The sandbox, from `runtime.launch` or `runtime.getById`. The session never destroys it. */
  readonly handle: H;
  /** The session's `description`, for the agent's instructions. Default: one naming the provider and the base directory. */
  readonly description?: string;
}

/** Every key of {@link SandboxSessionOptions}; any other is refused, naming the nearest known one. */
export const SANDBOX_SESSION_OPTION_KEYS = keyList<SandboxSessionOptions>({
  ...BRIDGE_OPTION_SHAPE,
  handle: true,
  description: true,
});
