import { BRIDGE_OPTION_SHAPE, type BridgeOptions, keyList, type LaunchSpec, type SandboxHandle } from "@sandport/core";

/**
 * The label a sandbox the provider launches carries: the id TanStack AI asked
 * for (`create({ id })`, the sandbox key of `defineSandbox`), or one the
 * provider minted. `resume({ id })` and `destroy({ id })` find the sandbox by it.
 */
export const SANDBOX_ID_LABEL = "tanstack-ai/sandbox-id";

/**
 * What {@link sandportSandboxProvider} needs: the runtime, and (from core's
 * `BridgeOptions`) `workingDirectory`, where commands without a `cwd` start,
 * what a relative `cwd` resolves against and where git works without a `dir`
 * (default: the runtime's workspace root), and `commandTimeoutMs`.
 */
export interface SandportSandboxProviderOptions<H extends SandboxHandle = SandboxHandle> extends BridgeOptions<H> {
  /**
   * How a sandbox is launched (template, labels, ports, lifetime, ...). Its
   * labels are kept beside {@link SANDBOX_ID_LABEL}; `create`'s `env` is
   * merged over its `env`. Default: the runtime's defaults.
   */
  readonly launch?: LaunchSpec;
  /**
   * Kills a command (`process.exec`) or a background process
   * (`process.spawn`) after this many milliseconds; its exit code is then
   * 124. Default: the runtime's run budget.
   */
  readonly commandTimeoutMs?: number;
}

/** Every key of {@link SandportSandboxProviderOptions}; any other is refused, naming the nearest known one. */
export const SANDPORT_SANDBOX_PROVIDER_OPTION_KEYS = keyList<SandportSandboxProviderOptions>({
  ...BRIDGE_OPTION_SHAPE,
  launch: true,
});
