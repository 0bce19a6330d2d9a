import type { OpOptions, SandportError } from "@sandport/core";
import {
  BackgroundTasks,
  type ErrorSite,
  foreignSandbox,
  isOwnedBy,
  type OperationCall,
  runOperation,
  type SdkLoader,
  sandboxNotFound,
} from "@sandport/core/adapter";
import { isSandboxNotFound, mapMicrosandboxError } from "./errors.js";
import { PROVIDER, sandboxNameOf, storedEnv, storedLabels, validSandboxName } from "./handle.js";
import { backendGate } from "./internal/default-backend.js";
import { createMicrosandboxSdkLoader, type MicrosandboxSdkSource } from "./internal/sdk.js";
import type { MicrosandboxSdk, MsbSandbox, MsbSandboxHandle, MsbSandboxStatics } from "./internal/sdk-types.js";
import type { ResolvedOptions } from "./options.js";

/** A sandbox record known to be ours, with what the adapter reads from it. */
export interface OwnedRecord {
  readonly record: MsbSandboxHandle;
  readonly labels: Readonly<Record<string, string>>;
}

/**
 * Per-runtime state shared by the operations: the SDK loader, the backend
 * every entry-point call goes to, attached sandboxes, which names are known
 * to be ours, each sandbox's launch environment, which sandboxes no command
 * has touched yet, and background cleanup. Not exported from the package.
 */
export class MicrosandboxContext {
  readonly options: ResolvedOptions;
  /** The `microsandbox` SDK, loaded on first use. */
  readonly sdk: SdkLoader<MicrosandboxSdk>;
  /** Cleanup of abandoned launches; `MicrosandboxRuntime.settle()` waits for it. */
  readonly background: BackgroundTasks;
  /** Launch keys whose sandboxes are being destroyed in the background; hidden from `findByLabels`. */
  readonly condemned = new Set<string>();
  readonly #attached = new Map<string, Promise<MsbSandbox>>();
  readonly #owned = new Set<string>();
  readonly #launchEnv = new Map<string, Readonly<Record<string, string>>>();
  /** Sandboxes launched here in which no command has run yet: nothing in them can be a symlink. */
  readonly #pristine = new Set<string>();

  constructor(
    options: ResolvedOptions,
    sdk?: MicrosandboxSdkSource,
    onBackgroundError?: (error: SandportError) => void,
  ) {
    this.options = options;
    this.sdk = createMicrosandboxSdkLoader({ backend: options.backend.kind, source: sdk });
    this.background = new BackgroundTasks(
      (error) => mapMicrosandboxError(error, { operation: "background cleanup" }),
      onBackgroundError,
    );
  }

  /** Runs one port method (`runOperation`): per-call options checked, deadline applied, errors mapped at `site`. */
  run<T>(
    op: OpOptions | undefined,
    site: ErrorSite,
    defaultTimeoutMs: number,
    task: (call: OperationCall) => Promise<T>,
  ): Promise<T> {
    const mapError = (error: unknown) => mapMicrosandboxError(error, site);
    return runOperation(op, { provider: PROVIDER, operation: site.operation, defaultTimeoutMs, mapError }, task);
  }

  /** {@link run} for the sandbox `handle` names, its name checked first (`INVALID_REQUEST`, before any request). */
  onHandle<T>(
    handle: unknown,
    op: OpOptions | undefined,
    site: string | Omit<ErrorSite, "sandboxId">,
    defaultTimeoutMs: number,
    task: (name: string, call: OperationCall) => Promise<T>,
  ): Promise<T> {
    const where = typeof site === "string" ? { operation: site } : site;
    let name: string;
    try {
      name = sandboxNameOf(handle, where.operation);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.run(op, { ...where, sandboxId: name }, defaultTimeoutMs, (call) => task(name, call));
  }

  /** {@link onHandle} on the attached SDK sandbox of an owned sandbox (see {@link sandbox}). */
  onSandbox<T>(
    handle: unknown,
    op: OpOptions | undefined,
    site: string | Omit<ErrorSite, "sandboxId">,
    defaultTimeoutMs: number,
    task: (sandbox: MsbSandbox, call: OperationCall, name: string) => Promise<T>,
  ): Promise<T> {
    const operation = typeof site === "string" ? site : site.operation;
    return this.onHandle(handle, op, site, defaultTimeoutMs, async (name, call) =>
      task(await this.sandbox(name, operation), call, name),
    );
  }

  /**
   * One call of the SDK's static entry points, made with this runtime's
   * backend as the process-wide default for as long as it runs (see
   * `BackendGate`). `signal` stops a call still waiting for its turn.
   */
  async entry<T>(call: (statics: MsbSandboxStatics) => Promise<T>, signal?: AbortSignal): Promise<T> {
    const sdk = await this.sdk();
    return backendGate().run(sdk.native, this.options.backend, () => call(sdk.Sandbox), signal);
  }

  /** The sandbox's record (`GET by-name`), or `undefined` when it does not exist. Ownership is not checked. */
  async record(name: string, operation: string, signal?: AbortSignal): Promise<MsbSandboxHandle | undefined> {
    validSandboxName(name);
    try {
      return await this.entry((statics) => statics.get(name), signal);
    } catch (error) {
      if (isSandboxNotFound(error)) return undefined;
      throw mapMicrosandboxError(error, { operation, sandboxId: name });
    }
  }

  /**
   * The sandbox's record: `undefined` when it does not exist, `FOREIGN_SANDBOX`
   * when it exists without our ownership marker. One `GET by-name`.
   */
  async ownedRecord(name: string, operation: string, signal?: AbortSignal): Promise<OwnedRecord | undefined> {
    const record = await this.record(name, operation, signal);
    if (!record) return undefined;
    const labels = storedLabels(record.configJson);
    if (!isOwnedBy(labels, this.options.owner)) throw foreignSandbox(PROVIDER, name, operation);
    this.#owned.add(name);
    if (!this.#launchEnv.has(name)) this.#launchEnv.set(name, storedEnv(record.configJson));
    return { record, labels };
  }

  /** Rejects `FOREIGN_SANDBOX` or `NOT_FOUND` unless `name` is ours; one lookup unless already known. */
  async assertOwned(name: string, operation: string): Promise<void> {
    if (this.#owned.has(name)) return;
    if (!(await this.ownedRecord(name, operation))) throw sandboxNotFound(PROVIDER, name, operation);
  }

  /**
   * The SDK sandbox of an owned sandbox: the one kept from launch or start,
   * else attached (`connect`) after an ownership check. A missing sandbox is
   * `NOT_FOUND`.
   */
  async sandbox(name: string, operation: string): Promise<MsbSandbox> {
    const kept = this.#attached.get(name);
    if (kept) return kept;
    // Kept before the first await, so concurrent calls share one lookup and one attach.
    const attaching = this.#attach(name, operation);
    this.#attached.set(name, attaching);
    try {
      return await attaching;
    } catch (error) {
      if (this.#attached.get(name) === attaching) this.#attached.delete(name);
      throw error;
    }
  }

  async #attach(name: string, operation: string): Promise<MsbSandbox> {
    const owned = await this.ownedRecord(name, operation);
    if (!owned) throw sandboxNotFound(PROVIDER, name, operation);
    try {
      return await owned.record.connect();
    } catch (error) {
      if (isSandboxNotFound(error)) throw sandboxNotFound(PROVIDER, name, operation, error);
      throw mapMicrosandboxError(error, { operation, sandboxId: name });
    }
  }

  /** Keeps an attached sandbox of ours, and the environment it was launched with, for later calls. */
  remember(name: string, sandbox: MsbSandbox, launchEnv?: Readonly<Record<string, string>>): void {
    this.#owned.add(name);
    this.#attached.set(name, Promise.resolve(sandbox));
    if (launchEnv) this.#launchEnv.set(name, launchEnv);
  }

  /** True when this runtime launched or verified `name`. */
  knownOwned(name: string): boolean {
    return this.#owned.has(name);
  }

  /** Records that `name` carries our ownership marker. */
  markOwned(name: string): void {
    this.#owned.add(name);
  }

  /**
   * The environment `name` was launched with, sent under every command's own
   * (the SDK repeats it only from the `Sandbox` that created it).
   */
  launchEnv(name: string): Readonly<Record<string, string>> {
    return this.#launchEnv.get(name) ?? {};
  }

  /** Records that `name` was just launched here: only this runtime's file writes have touched it. */
  markPristine(name: string): void {
    this.#pristine.add(name);
  }

  /** Records that a command is about to run in `name` (it may create symlinks from now on). */
  markCommandRun(name: string): void {
    this.#pristine.delete(name);
  }

  /** True while no command has run in a sandbox launched by this runtime. */
  isPristine(name: string): boolean {
    return this.#pristine.has(name);
  }

  /** Drops the attached sandbox (after a stop: it must be attached again), and everything else unless `keepOwnership`. */
  forget(name: string, options: { readonly keepOwnership?: boolean } = {}): void {
    this.#attached.delete(name);
    this.#pristine.delete(name);
    if (options.keepOwnership) return;
    this.#owned.delete(name);
    this.#launchEnv.delete(name);
  }
}
