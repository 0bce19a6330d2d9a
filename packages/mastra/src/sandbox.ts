import { randomUUID } from "node:crypto";
import { posix } from "node:path";
import type {
  CommandResult,
  ExecuteCommandOptions,
  ProviderStatus,
  SandboxFileInput,
  SandboxInfo,
  SandboxNetworking,
  WorkspaceSandbox,
  WriteFilesOptions,
} from "@mastra/core/workspace";
import {
  bridgeBaseDirectory,
  checkBridgeOptions,
  isNetworkRefusal,
  type SandboxHandle,
  type SandboxRuntime,
  SandportError,
} from "@sandport/core";
import { checkpointsOf, persistCheckpoint, seedCheckpoint } from "./checkpoints.js";
import type { BridgeContext } from "./context.js";
import { executeCommand } from "./execute-command.js";
import { withCause } from "./filesystem-errors.js";
import { loadMastra } from "./internal/sdk.js";
import { MASTRA_SANDBOX_OPTION_KEYS, type MastraSandboxOptions, SANDBOX_ID_LABEL } from "./options.js";
import { canStartProcesses, createProcessManager } from "./process-manager.js";
import { toMastraSandboxError } from "./sandbox-errors.js";

/** A Mastra `WorkspaceSandbox` over a Sandport runtime, with the sandbox it holds once started. */
export interface SandportWorkspaceSandbox<H extends SandboxHandle = SandboxHandle> extends WorkspaceSandbox {
  /** The runtime the sandbox runs on. */
  readonly runtime: SandboxRuntime<H>;
  /** The Sandport sandbox, starting it first when needed (for a filesystem over the same sandbox). */
  sandboxHandle(): Promise<H>;
}

/**
 * A Mastra `WorkspaceSandbox` (for `new Workspace({ sandbox })`) over any
 * Sandport runtime, built on Mastra's own `MastraSandbox`, which is why this
 * is async: `@mastra/core` is loaded here, not when this package is imported.
 * `start()` adopts the given handle, else the sandbox labelled with `id`
 * (where the runtime searches labels), else launches one; `destroy()`
 * destroys it; `stop()` kills the processes it started, as Mastra's
 * `LocalSandbox` does, then stops the sandbox with the port's `stop` where
 * the runtime has one (the next `start()` resumes it with the port's
 * `start`); its status is then `stopped`, and any call starts it again.
 * Commands run with `sh`; `processes` is there where the runtime can start
 * processes (`spawn`, or async commands), `networking` where it has
 * `portEndpoint`. A command's working directory may be any directory of
 * the sandbox (`/tmp`; a relative one is resolved against the base, as
 * Mastra's `LocalSandbox` does), a missing one the port's `NOT_FOUND`; a
 * file path outside the workspace is Mastra's `PermissionError`, the port's
 * `SandportError` its `cause`. Mastra's contract has neither a terminal nor
 * a network policy: a sandbox's policy is `launch.network`, and one the
 * runtime cannot enforce is Mastra's `SandboxUnsupportedFeatureError` at
 * `start()`, nothing launched.
 */
export async function createMastraSandbox<H extends SandboxHandle>(
  options: MastraSandboxOptions<H>,
): Promise<SandportWorkspaceSandbox<H>> {
  checkBridgeOptions(options, MASTRA_SANDBOX_OPTION_KEYS, "createMastraSandbox options");
  const mastra = await loadMastra();
  const { runtime } = options;
  const checkpoints = checkpointsOf(mastra, runtime, options);
  const root = runtime.workspaceRoot;
  const base = bridgeBaseDirectory(options);
  let held: H | undefined;
  /** Whether `stop()` stopped the sandbox with the port's `stop` (the next start resumes it). */
  let paused = false;
  let sandbox: InstanceType<typeof SandportSandbox> | undefined;
  const context: BridgeContext<H> = {
    mastra,
    runtime,
    base,
    commandTimeoutMs: options.commandTimeoutMs,
    handle: () => {
      if (held === undefined)
        throw new SandportError({ code: "INVALID_REQUEST", message: "the Mastra sandbox has not been started" });
      return held;
    },
    env: () => sandbox?.getEnv() ?? {},
  };

  class SandportSandbox extends mastra.MastraSandbox<H> implements SandportWorkspaceSandbox<H> {
    readonly id = options.id ?? `sandport-${randomUUID()}`;
    readonly name = "SandportSandbox";
    readonly provider = `sandport-${runtime.provider}`;
    status: ProviderStatus = "pending";
    readonly runtime = runtime;
    /** True where the runtime has the port's snapshots: `snapshot()` persists `checkpointName`. */
    override readonly supportsCheckpoints = checkpoints !== undefined;

    constructor() {
      super({
        name: "SandportSandbox",
        workingDirectory: base,
        ...(options.env === undefined ? {} : { env: options.env }),
        ...(canStartProcesses(context) ? { processes: createProcessManager(context) } : {}),
      });
      if (runtime.portEndpoint) Object.assign(this, { networking: portNetworking(context) });
    }

    async sandboxHandle(): Promise<H> {
      await this.ensureRunning();
      return context.handle();
    }

    protected override async find(): Promise<H | undefined> {
      // Started before (then stopped): the same sandbox, not a new one.
      if (held !== undefined) return held;
      if (options.handle) return options.handle;
      if (!runtime.findByLabels) return undefined;
      const [found] = await runtime.findByLabels({ [SANDBOX_ID_LABEL]: this.id });
      return found;
    }

    protected override async connect(handle: H): Promise<void> {
      // A sandbox this object stopped with the port's stop is resumed, as starting a stopped Mastra sandbox runs it again.
      if (paused && runtime.start) await runtime.start(handle);
      paused = false;
      held = handle;
    }

    protected override async create(): Promise<void> {
      const labels = { ...options.launch?.labels, [SANDBOX_ID_LABEL]: this.id };
      // As Mastra's LocalSandbox seeds an empty working directory: only a fresh sandbox starts from a checkpoint.
      const seed = await seedCheckpoint(checkpoints, options);
      const from = seed === undefined ? {} : { from: seed };
      held = await runtime.launch({ ...options.launch, labels, ...from }).catch((error: unknown) => {
        // Mastra's contract has no network policy of its own: a launch.network the runtime cannot enforce is
        // refused (nothing created) and reported as Mastra reports a feature the sandbox lacks.
        if (!isNetworkRefusal(error)) throw error;
        throw withCause(new mastra.SandboxUnsupportedFeatureError(error.message, { feature: "network" }), error);
      });
    }

    override async stop(): Promise<void> {
      // As Mastra's LocalSandbox stops: its processes end, the sandbox's files stay.
      const processes = this.processes;
      if (processes) {
        const running = (await processes.list()).filter((process) => process.running);
        // A process the port cannot kill (an async command) stops with the sandbox where the runtime can stop it.
        const unkillable = (error: unknown) => {
          if (error instanceof mastra.SandboxUnsupportedFeatureError) return false;
          throw error;
        };
        await Promise.all(running.map((process) => processes.kill(process.pid).catch(unkillable)));
      }
      if (held !== undefined && runtime.stop) {
        await runtime.stop(held);
        paused = true;
      }
      // What Mastra's stop wrapper sets after this hook, so a direct call leaves the same state: the next call starts it again.
      this.status = "stopped";
    }

    /**
     * Persists the sandbox as `checkpointName`'s checkpoint (a new snapshot,
     * the older ones deleted once it is taken); without a `checkpointName`
     * nothing to do, as Mastra's LocalSandbox.
     */
    override async snapshot(): Promise<void> {
      if (checkpoints === undefined || options.checkpointName === undefined) return;
      await this.ensureRunning();
      await persistCheckpoint(checkpoints, context.handle(), options.checkpointName);
    }

    override async destroy(): Promise<void> {
      if (held !== undefined) await runtime.destroy(held);
      held = undefined;
    }

    override async executeCommand(
      command: string,
      args?: string[],
      commandOptions?: ExecuteCommandOptions,
    ): Promise<CommandResult> {
      await this.ensureRunning();
      return executeCommand(context, command, args, commandOptions);
    }

    override async writeFiles(files: SandboxFileInput[], writeOptions?: WriteFilesOptions): Promise<void> {
      await this.ensureRunning();
      const inputs = files.map((file) => ({
        path: posix.resolve(base, file.path),
        content: file.content,
        ...(file.mode === undefined ? {} : { mode: file.mode }),
      }));
      const signal = writeOptions?.abortSignal;
      try {
        await runtime.writeFiles(context.handle(), inputs, signal === undefined ? {} : { signal });
      } catch (error) {
        throw toMastraSandboxError(mastra, error, { files });
      }
    }

    override getInstructions(): string {
      return [
        `A Sandport ${runtime.provider} sandbox. Commands run with sh, in ${base} unless given a cwd.`,
        `Paths must lie under ${root}.`,
      ].join(" ");
    }

    override async getInfo(): Promise<SandboxInfo> {
      return {
        id: this.id,
        name: this.name,
        provider: this.provider,
        status: this.status,
        createdAt: held?.createdAt === undefined ? new Date() : new Date(held.createdAt),
        metadata: { runtime: runtime.provider, ...(held === undefined ? {} : { sandboxId: held.id }) },
      };
    }
  }

  sandbox = new SandportSandbox();
  return sandbox;
}

/** Mastra's networking capability over the port's `portEndpoint`. */
function portNetworking(context: BridgeContext): SandboxNetworking {
  return {
    async getPortUrl(port) {
      const { runtime, mastra } = context;
      let endpoint: Awaited<ReturnType<NonNullable<typeof runtime.portEndpoint>>>;
      try {
        endpoint = await runtime.portEndpoint!(context.handle(), port);
      } catch (error) {
        // A port the sandbox was not launched with is "not exposed", which Mastra answers with null.
        if (SandportError.hasCode(error, "INVALID_REQUEST")) return null;
        throw error;
      }
      if (endpoint.headers !== undefined && Object.keys(endpoint.headers).length > 0) {
        throw new mastra.SandboxUnsupportedFeatureError(
          `port ${port} needs request headers, which a bare URL cannot carry`,
          { feature: "networking.getPortUrl", port },
        );
      }
      return endpoint.url;
    },
  };
}
