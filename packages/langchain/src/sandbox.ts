import {
  BRIDGE_OPTION_SHAPE,
  type BridgeOptions,
  bridgeBaseDirectory,
  checkBridgeOptions,
  keyList,
  type SandboxHandle,
  type SandboxRuntime,
} from "@sandport/core";
import type { BaseSandbox, ExecuteResponse, FileDownloadResponse, FileUploadResponse } from "deepagents";
import { toExecuteResponse } from "./execute.js";
import { downloadFiles, uploadFiles } from "./files.js";
import { type DeepAgentsSdk, loadDeepAgents } from "./internal/sdk.js";

/**
 * What {@link createDeepAgentsSandbox} needs: core's `BridgeOptions` (the
 * runtime; `workingDirectory`, where `execute` runs and what relative upload
 * and download paths resolve against, default the workspace root;
 * `commandTimeoutMs`, each `execute` call's run budget, default the runtime's)
 * and the sandbox.
 */
export interface DeepAgentsSandboxOptions<H extends SandboxHandle = SandboxHandle> extends BridgeOptions<H> {
  /** The sandbox (the bridge neither launches nor destroys it). */
  readonly handle: H;
}

/** Every key of {@link DeepAgentsSandboxOptions}; any other is refused, naming the nearest known one. */
export const DEEP_AGENTS_SANDBOX_OPTION_KEYS = keyList<DeepAgentsSandboxOptions>({
  ...BRIDGE_OPTION_SHAPE,
  handle: true,
});

/** A deepagents `BaseSandbox` over one Sandport sandbox. */
export interface SandportDeepAgentsSandbox<H extends SandboxHandle = SandboxHandle> extends BaseSandbox {
  /** The runtime the sandbox lives in. */
  readonly runtime: SandboxRuntime<H>;
  /** The sandbox. */
  readonly handle: H;
}

/** The subclass of the loaded `BaseSandbox`, built once per loaded class. */
const classes = new WeakMap<DeepAgentsSdk["BaseSandbox"], new (options: DeepAgentsSandboxOptions) => BaseSandbox>();

function sandboxClass(sdk: DeepAgentsSdk): new (options: DeepAgentsSandboxOptions) => BaseSandbox {
  const known = classes.get(sdk.BaseSandbox);
  if (known) return known;
  class SandportSandbox extends sdk.BaseSandbox implements SandportDeepAgentsSandbox {
    readonly id: string;
    readonly runtime: SandboxRuntime;
    readonly handle: SandboxHandle;
    readonly #base: string;
    readonly #timeoutMs: number | undefined;

    constructor(options: DeepAgentsSandboxOptions) {
      super();
      this.runtime = options.runtime;
      this.handle = options.handle;
      this.id = `${options.runtime.provider}:${options.handle.id}`;
      this.#base = bridgeBaseDirectory(options);
      this.#timeoutMs = options.commandTimeoutMs;
    }

    async execute(command: string): Promise<ExecuteResponse> {
      const timeout = this.#timeoutMs === undefined ? {} : { timeoutMs: this.#timeoutMs };
      return toExecuteResponse(await this.runtime.exec(this.handle, { shell: command, cwd: this.#base, ...timeout }));
    }

    uploadFiles(files: Array<[string, Uint8Array]>): Promise<FileUploadResponse[]> {
      return uploadFiles(this.runtime, this.handle, this.#base, files);
    }

    downloadFiles(paths: string[]): Promise<FileDownloadResponse[]> {
      return downloadFiles(this.runtime, this.handle, this.#base, paths);
    }
  }
  classes.set(sdk.BaseSandbox, SandportSandbox);
  return SandportSandbox;
}

/**
 * A deepagents `BaseSandbox` over a Sandport sandbox you hold, for
 * `createDeepAgent({ backend })`. `execute` runs the command with `sh -c` in
 * the working directory; `uploadFiles` and `downloadFiles` report each file's outcome
 * with the framework's error values (`file_not_found`, `is_directory`,
 * `invalid_path`), so paths outside the workspace fail per file instead of
 * failing the call; the rest of deepagents' file tools (`ls`, `read`, `grep`,
 * `glob`, `edit`, ...) come from `BaseSandbox`, over `execute`. Loads
 * `deepagents` on first use.
 */
export async function createDeepAgentsSandbox<H extends SandboxHandle>(
  options: DeepAgentsSandboxOptions<H>,
): Promise<SandportDeepAgentsSandbox<H>> {
  checkBridgeOptions(options, DEEP_AGENTS_SANDBOX_OPTION_KEYS, "createDeepAgentsSandbox options");
  const Sandbox = sandboxClass(await loadDeepAgents());
  return new Sandbox(options as DeepAgentsSandboxOptions) as SandportDeepAgentsSandbox<H>;
}
