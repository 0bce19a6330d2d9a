import type { Sandbox, SandboxFactory } from "@flue/runtime";
import type { LaunchSpec, SandboxHandle, SandboxRuntime } from "@sandport/core";
import { SandportFlueDriver } from "./driver.js";
import { loadFlue } from "./internal/sdk.js";

/** The label a sandbox the factory launches carries: the Flue instance id it serves. */
export const FLUE_INSTANCE_LABEL = "flue.instance";

/** What {@link sandportSandbox} needs. */
export interface SandportSandboxOptions<H extends SandboxHandle = SandboxHandle> {
  /** The runtime the sandbox lives in. */
  readonly runtime: SandboxRuntime<H>;
  /** A sandbox you hold, shared by every harness. Without it, one sandbox per Flue instance id is launched. */
  readonly handle?: H;
  /** How a sandbox is launched (labels, env, ports, ...), when there is no `handle`. */
  readonly launch?: LaunchSpec;
  /** The base directory Flue resolves the agent's cwd against. Default: the runtime's workspace root. */
  readonly cwd?: string;
}

/**
 * A Flue `SandboxFactory` over a Sandport runtime, for `useSandbox(...)`.
 * With a `handle`, every harness gets that sandbox. Without one, each Flue
 * instance id gets its own sandbox, labelled `flue.instance=<id>`: repeated
 * calls with the same id reuse it (found again with `findByLabels` where the
 * runtime has it, so also from another process). The factory never destroys
 * a sandbox; that stays with the application, as Flue's adapter contract says.
 */
export function sandportSandbox<H extends SandboxHandle>(options: SandportSandboxOptions<H>): SandboxFactory {
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
      return sdk.sandboxFromDriver(new SandportFlueDriver(runtime, handle), options.cwd ?? runtime.workspaceRoot);
    },
  };
}
