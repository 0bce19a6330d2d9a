import type { Sandbox, SandboxFactory } from "@flue/runtime";
import {
  BRIDGE_OPTION_SHAPE,
  type BridgeOptions,
  bridgeBaseDirectory,
  checkBridgeOptions,
  keyList,
  type LaunchSpec,
  type SandboxHandle,
} from "@sandport/core";
import { SandportFlueDriver } from "./driver.js";
import { loadFlue } from "./internal/sdk.js";

/** The label a sandbox the factory launches carries: the Flue instance id it serves. */
export const FLUE_INSTANCE_LABEL = "flue.instance";

/**
 * What {@link sandportSandbox} needs: the runtime, and (from core's
 * `BridgeOptions`) `workingDirectory`, the base Flue resolves the agent's cwd
 * against (default: the runtime's workspace root), and `commandTimeoutMs`, the
 * limit of commands Flue runs without one.
 */
export interface SandportSandboxOptions<H extends SandboxHandle = SandboxHandle> extends BridgeOptions<H> {
  /** A sandbox you hold, shared by every harness. Without it, one sandbox per Flue instance id is launched. */
  readonly handle?: H;
  /** How a sandbox is launched (labels, env, ports, ...), when there is no `handle`. */
  readonly launch?: LaunchSpec;
}

/** Every key of {@link SandportSandboxOptions}; any other is refused, naming the nearest known one. */
export const SANDPORT_SANDBOX_OPTION_KEYS = keyList<SandportSandboxOptions>({
  ...BRIDGE_OPTION_SHAPE,
  handle: true,
  launch: true,
});

/**
 * A Flue `SandboxFactory` over a Sandport runtime, for `useSandbox(...)`.
 * With a `handle`, every harness gets that sandbox. Without one, each Flue
 * instance id gets its own sandbox, labelled `flue.instance=<id>`: repeated
 * calls with the same id reuse it (found again with `findByLabels` where the
 * runtime has it, so also from another process). The factory never destroys
 * a sandbox; that stays with the application, as Flue's adapter contract says.
 */
export function sandportSandbox<H extends SandboxHandle>(options: SandportSandboxOptions<H>): SandboxFactory {
  checkBridgeOptions(options, SANDPORT_SANDBOX_OPTION_KEYS, "sandportSandbox options");
  const { runtime } = options;
  const launched = new Map<string, Promise<H>>();

  const sandboxFor = (id: string): Promise<H> => {
    if (options.handle) return Promise.resolve(options.handle);
    let pending = launched.get(id);
    if (!pending) {
      pending = (async () => {
        const found = (await runtime.findByLabels?.({ [FLUE_INSTANCE_LABEL]: id })) ?? [];
        if (found[0]) return found[0];
        const launch = options.launch ?? {};
        return runtime.launch({ ...launch, labels: { ...launch.labels, [FLUE_INSTANCE_LABEL]: id } });
      })();
      launched.set(id, pending);
      pending.catch(() => launched.delete(id));
    }
    return pending;
  };

  return {
    async createSandbox({ id }: { id: string }): Promise<Sandbox> {
      const sdk = await loadFlue();
      const handle = await sandboxFor(id);
      const commandTimeoutMs =
        options.commandTimeoutMs === undefined ? {} : { commandTimeoutMs: options.commandTimeoutMs };
      const driver = new SandportFlueDriver(runtime, handle, commandTimeoutMs);
      return sdk.sandboxFromDriver(driver, bridgeBaseDirectory(options));
    },
  };
}
