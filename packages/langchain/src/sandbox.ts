import { randomUUID } from "node:crypto";
import type { BridgeOptions, ExecResult, Labels, LaunchSpec, SandboxHandle, SandboxRuntime } from "@sandport/core";
import { isNetworkRefusal } from "@sandport/core";
import type { BaseSandbox, ExecuteResponse, FileDownloadResponse, FileUploadResponse } from "deepagents";
import { commandFailed, commandTimedOut, toExecuteResponse } from "./execute.js";
import { downloadFiles, uploadFiles } from "./files.js";
import { type DeepAgentsSdk, loadDeepAgents } from "./internal/sdk.js";
import { attachById, deleteByLabels } from "./lifecycle.js";
import { reasonOf, sandboxError } from "./lifecycle-error.js";
import { checkSandboxOptions, type DeepAgentsSandboxOptions } from "./options.js";

export { DEEP_AGENTS_SANDBOX_OPTION_KEYS, type DeepAgentsSandboxOptions } from "./options.js";

/**
 * A deepagents `BaseSandbox` over one Sandport sandbox, with the lifecycle of
 * the framework's own sandboxes (Daytona, Modal, Deno): constructed, then
 * `initialize()`d (or built by the class's `create`), `isRunning`, `close()`.
 */
export interface SandportDeepAgentsSandbox<H extends SandboxHandle = SandboxHandle> extends BaseSandbox {
  /**
   * `<provider>:<sandbox id>` from the launch on (kept after `close()`, as
   * the framework's sandboxes keep theirs); before `initialize()`, a
   * temporary `<provider>:uninitialized-<uuid>` (the framework's sandboxes
   * also carry a temporary id until they are initialized).
   */
  readonly id: string;
  /** The runtime the sandbox lives in. */
  readonly runtime: SandboxRuntime<H>;
  /** The sandbox; reading it when not running throws the framework's `SandboxError` `NOT_INITIALIZED`. */
  readonly handle: H;
  /** Whether the instance has a sandbox: after `initialize()` (or built with a `handle`), until `close()`. */
  readonly isRunning: boolean;
  /**
   * Launches the sandbox (the options' `launch`), then writes the options'
   * `initialFiles`. Rejects with the framework's `SandboxError`:
   * `ALREADY_INITIALIZED` when running or initializing, `SANDBOX_CREATION_FAILED`
   * when the launch fails, `FILE_OPERATION_FAILED` when an initial file
   * cannot be written (the sandbox is then destroyed); the Sandport error is
   * the `cause`.
   */
  initialize(): Promise<void>;
  /**
   * Runs `command` with `sh -c` in the working directory. Rejects as
   * deepagents' Daytona, Modal and Deno sandboxes do: a command past its time
   * limit with the framework's `SandboxError` `COMMAND_TIMEOUT`, a failure of
   * the runtime with `COMMAND_FAILED` (the `SandportError` as `cause`), and
   * `NOT_INITIALIZED` when not running.
   */
  execute(command: string): Promise<ExecuteResponse>;
  /**
   * Destroys the sandbox and leaves the instance not running; nothing when it
   * is not running (as the framework's sandboxes). If the destroy fails, the
   * instance stays running, so `close()` can be called again.
   */
  close(): Promise<void>;
}

/**
 * The class of {@link SandportDeepAgentsSandbox}, with the statics of the
 * framework's own sandboxes: `new` (no I/O) then `initialize()`, or `create`;
 * `fromId`; `deleteAll` by labels.
 */
export interface SandportDeepAgentsSandboxClass {
  /**
   * A sandbox instance, not yet running unless `options.handle` is given.
   * Options are checked here: a bad one is `INVALID_REQUEST` before anything
   * reaches the runtime.
   */
  new <H extends SandboxHandle = SandboxHandle>(options: DeepAgentsSandboxOptions<H>): SandportDeepAgentsSandbox<H>;
  /** `new`, then `initialize()` (the framework's `create`). */
  create<H extends SandboxHandle = SandboxHandle>(
    options: DeepAgentsSandboxOptions<H>,
  ): Promise<SandportDeepAgentsSandbox<H>>;
  /**
   * The running sandbox with this id (the runtime's sandbox id, or this
   * bridge's `<provider>:<sandbox id>`), through the runtime's `getById`.
   * Absent is the framework's `SandboxError` `SANDBOX_NOT_FOUND`; a runtime
   * without `getById` is `NOT_SUPPORTED`; other failures reject with their
   * Sandport error.
   */
  fromId<H extends SandboxHandle = SandboxHandle>(
    id: string,
    options: BridgeOptions<H>,
  ): Promise<SandportDeepAgentsSandbox<H>>;
  /**
   * Destroys every sandbox carrying all these labels (`{}`: every sandbox of
   * the runtime's owner, as the port's `findByLabels` reads it) and resolves
   * to how many, as Daytona's `deleteAll`. A runtime without `findByLabels` is
   * the framework's `SandboxError` `NOT_SUPPORTED`. If any destroy fails, it
   * still destroys the others, then rejects with an `AggregateError` of the
   * failures.
   */
  deleteAll(labels: Labels, options: Pick<BridgeOptions, "runtime">): Promise<number>;
}

/** The class built over each loaded `BaseSandbox`. */
const classes = new WeakMap<DeepAgentsSdk["BaseSandbox"], SandportDeepAgentsSandboxClass>();

function sandboxClass(sdk: DeepAgentsSdk): SandportDeepAgentsSandboxClass {
  const known = classes.get(sdk.BaseSandbox);
  if (known) return known;
  const where = "SandportDeepAgentsSandbox options";

  class SandportSandbox extends sdk.BaseSandbox implements SandportDeepAgentsSandbox {
    readonly runtime: SandboxRuntime;
    #id: string;
    readonly #base: string;
    readonly #timeoutMs: number | undefined;
    readonly #launch: LaunchSpec;
    readonly #initialFiles: Array<[string, Uint8Array]>;
    #handle: SandboxHandle | undefined;
    #initializing: Promise<void> | undefined;
    #closing: Promise<void> | undefined;

    constructor(options: DeepAgentsSandboxOptions) {
      super();
      const checked = checkSandboxOptions(options, where);
      this.runtime = options.runtime;
      const sandboxId = options.handle?.id ?? `uninitialized-${randomUUID()}`;
      this.#id = `${options.runtime.provider}:${sandboxId}`;
      this.#base = checked.base;
      this.#timeoutMs = options.commandTimeoutMs;
      this.#launch = checked.launch;
      this.#initialFiles = checked.initialFiles;
      this.#handle = options.handle;
    }

    get id(): string {
      return this.#id;
    }

    get isRunning(): boolean {
      return this.#handle !== undefined;
    }

    get handle(): SandboxHandle {
      if (!this.#handle) {
        throw sandboxError(sdk, "Sandbox not initialized. Call initialize() or use create()", "NOT_INITIALIZED");
      }
      return this.#handle;
    }

    initialize(): Promise<void> {
      if (this.#handle || this.#initializing) {
        const message = "Sandbox is already initialized. Each instance can only be initialized once.";
        return Promise.reject(sandboxError(sdk, message, "ALREADY_INITIALIZED"));
      }
      const initializing = this.#start().finally(() => {
        this.#initializing = undefined;
      });
      this.#initializing = initializing;
      return initializing;
    }

    async #start(): Promise<void> {
      let handle: SandboxHandle;
      try {
        handle = await this.runtime.launch(this.#launch);
      } catch (error) {
        const message = `Failed to create ${this.runtime.provider} sandbox: ${reasonOf(error)}`;
        // A launch.network the runtime cannot enforce is refused before anything is created: not a failure, a lack.
        throw sandboxError(sdk, message, isNetworkRefusal(error) ? "NOT_SUPPORTED" : "SANDBOX_CREATION_FAILED", error);
      }
      this.#handle = handle;
      this.#id = `${this.runtime.provider}:${handle.id}`;
      if (this.#initialFiles.length > 0) await this.#writeInitialFiles(handle);
    }

    /** Writes the initial files; if any fails, destroys the sandbox it launched and rejects. */
    async #writeInitialFiles(handle: SandboxHandle): Promise<void> {
      let failure: Error | undefined;
      try {
        const failed = (await this.uploadFiles(this.#initialFiles)).filter(({ error }) => error !== null);
        if (failed.length > 0) {
          const paths = failed.map(({ path, error }) => `${path}: ${error}`).join(", ");
          failure = sandboxError(sdk, `Failed to upload initial files: ${paths}`, "FILE_OPERATION_FAILED");
        }
      } catch (error) {
        failure = sandboxError(
          sdk,
          `Failed to upload initial files: ${reasonOf(error)}`,
          "FILE_OPERATION_FAILED",
          error,
        );
      }
      if (!failure) return;
      try {
        await this.runtime.destroy(handle);
      } catch (destroyError) {
        // The sandbox may still run: it stays this instance's, for close() to retry.
        const message = `${failure.message}; destroying the sandbox failed too (${reasonOf(destroyError)}): close() it`;
        throw sandboxError(sdk, message, "FILE_OPERATION_FAILED", new AggregateError([failure, destroyError]));
      }
      this.#handle = undefined;
      throw failure;
    }

    close(): Promise<void> {
      this.#closing ??= this.#stop().finally(() => {
        this.#closing = undefined;
      });
      return this.#closing;
    }

    async #stop(): Promise<void> {
      // A launch in flight would leave a sandbox behind: wait for it. Its failure is initialize()'s to report.
      await this.#initializing?.catch(() => undefined);
      const handle = this.#handle;
      if (!handle) return;
      await this.runtime.destroy(handle);
      this.#handle = undefined;
    }

    async execute(command: string): Promise<ExecuteResponse> {
      const handle = this.handle;
      const timeout = this.#timeoutMs === undefined ? {} : { timeoutMs: this.#timeoutMs };
      let result: ExecResult;
      try {
        result = await this.runtime.exec(handle, { shell: command, cwd: this.#base, ...timeout });
      } catch (error) {
        throw commandFailed(sdk, command, error);
      }
      if (result.timedOut) throw commandTimedOut(sdk, command, result, this.runtime.provider);
      return toExecuteResponse(result);
    }

    async uploadFiles(files: Array<[string, Uint8Array]>): Promise<FileUploadResponse[]> {
      return uploadFiles(this.runtime, this.handle, this.#base, files);
    }

    async downloadFiles(paths: string[]): Promise<FileDownloadResponse[]> {
      return downloadFiles(this.runtime, this.handle, this.#base, paths);
    }

    static async create(options: DeepAgentsSandboxOptions): Promise<SandportSandbox> {
      const sandbox = new SandportSandbox(options);
      await sandbox.initialize();
      return sandbox;
    }

    static async fromId(id: string, options: BridgeOptions): Promise<SandportSandbox> {
      return new SandportSandbox({ ...options, handle: await attachById(sdk, id, options) });
    }

    static deleteAll(labels: Labels, options: Pick<BridgeOptions, "runtime">): Promise<number> {
      return deleteByLabels(sdk, labels, options);
    }
  }
  const built = SandportSandbox as unknown as SandportDeepAgentsSandboxClass;
  classes.set(sdk.BaseSandbox, built);
  return built;
}

/**
 * The {@link SandportDeepAgentsSandboxClass}, for the framework's two-step
 * lifecycle (`new Sandbox({ runtime, launch, initialFiles })`, then
 * `initialize()`), `Sandbox.create`, `Sandbox.fromId` and
 * `Sandbox.deleteAll`. Loads `deepagents` (the class extends its
 * `BaseSandbox`).
 */
export async function loadDeepAgentsSandboxClass(): Promise<SandportDeepAgentsSandboxClass> {
  return sandboxClass(await loadDeepAgents());
}

/**
 * A running deepagents `BaseSandbox` for `createDeepAgent({ backend })`:
 * over the sandbox you pass as `handle`, or one it launches (`launch`) and
 * fills (`initialFiles`) as the class's `create` does. `execute` runs the
 * command with `sh -c` in the working directory (a timeout or a runtime
 * failure rejects with the framework's `SandboxError`, `COMMAND_TIMEOUT` or
 * `COMMAND_FAILED`); `uploadFiles` and
 * `downloadFiles` report each file's outcome with the framework's error
 * values (`file_not_found`, `is_directory`, `invalid_path`), so paths outside
 * the workspace fail per file instead of failing the call; the rest of
 * deepagents' file tools (`ls`, `read`, `grep`, `glob`, `edit`, ...) come
 * from `BaseSandbox`, over `execute`. `close()` destroys the sandbox. Loads
 * `deepagents` on first use.
 */
export async function createDeepAgentsSandbox<H extends SandboxHandle>(
  options: DeepAgentsSandboxOptions<H>,
): Promise<SandportDeepAgentsSandbox<H>> {
  checkSandboxOptions(options, "createDeepAgentsSandbox options");
  const Sandbox = await loadDeepAgentsSandboxClass();
  return options.handle === undefined ? Sandbox.create(options) : new Sandbox(options);
}
