import type { OperationTimeouts, OpOptions, SandportError } from "@sandport/core";
import {
  BackgroundTasks,
  type ErrorSite,
  foreignSandbox,
  isOwnedBy,
  type OperationCall,
  OperationRunner,
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

/** A call's default deadline: a kind of `OperationTimeouts` (from the options), or ms. */
export type Deadline = Exclude<keyof OperationTimeouts, "execGraceMs"> | number;

/** What a runtime knows about one sandbox of its own. */
interface KnownSandbox {
  /** The SDK sandbox it is attached to (from launch, start or `connect`), when it is. */
  attached?: Promise<MsbSandbox>;
  /** The environment it was launched with, as far as known. */
  launchEnv: Readonly<Record<string, string>>;
  /** Launched here, and no command has run in it yet: nothing in it can be a symlink. */
  pristine: boolean;
}

/**
 * Per-runtime state shared by the operations: the SDK loader, the backend
 * every entry-point call goes to, the sandboxes known to be ours (attached
 * or not, with their launch environment), and background cleanup. Not
 * exported from the package.
 */
export class MicrosandboxContext {
  readonly options: ResolvedOptions;
  /** The `microsandbox` SDK, loaded on first use. */
  readonly sdk: SdkLoader<MicrosandboxSdk>;
  /** Cleanup of abandoned launches; `MicrosandboxRuntime.settle()` waits for it. */
  readonly background: BackgroundTasks;
  /** Launch keys whose sandboxes are being destroyed in the background; hidden from `findByLabels`. */
  readonly condemned = new Set<string>();
  /** Sandboxes known to carry our ownership marker, by name. */
  readonly #known = new Map<string, KnownSandbox>();
  /** Attaches in flight (the sandbox not yet known to be ours), shared by concurrent calls. */
  readonly #attaching = new Map<string, Promise<MsbSandbox>>();
  readonly #runner = new OperationRunner({
    provider: PROVIDER,
    mapError: mapMicrosandboxError,
    sandboxIdOf: sandboxNameOf,
  });

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

  /**
   * Runs one port method (the kit's `OperationRunner`): per-call options
   * checked, errors mapped at `site`, and the call's deadline when `op` has
   * none: one of the configured `timeouts` by kind, or a number of ms (a command's).
   */
  run<T>(
    op: OpOptions | undefined,
    site: ErrorSite,
    deadline: Deadline,
    task: (call: OperationCall) => Promise<T>,
  ): Promise<T> {
    return this.#runner.run(op, site, this.#deadlineMs(deadline), task);
  }

  /** {@link run} for the sandbox `handle` names, its name checked first (`INVALID_REQUEST`, before any request). */
  onHandle<T>(
    handle: unknown,
    op: OpOptions | undefined,
    site: string | Omit<ErrorSite, "sandboxId">,
    deadline: Deadline,
    task: (name: string, call: OperationCall) => Promise<T>,
  ): Promise<T> {
    return this.#runner.onHandle(handle, op, site, this.#deadlineMs(deadline), task);
  }

  /** {@link onHandle} on the attached SDK sandbox of an owned sandbox (see {@link sandbox}). */
  onSandbox<T>(
    handle: unknown,
    op: OpOptions | undefined,
    site: string | Omit<ErrorSite, "sandboxId">,
    deadline: Deadline,
    task: (sandbox: MsbSandbox, call: OperationCall, name: string) => Promise<T>,
  ): Promise<T> {
    const operation = typeof site === "string" ? site : site.operation;
    return this.onHandle(handle, op, site, deadline, async (name, call) =>
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
    this.#know(name).launchEnv = storedEnv(record.configJson);
    return { record, labels };
  }

  /** Rejects `FOREIGN_SANDBOX` or `NOT_FOUND` unless `name` is ours; one lookup unless already known. */
  async assertOwned(name: string, operation: string): Promise<void> {
    if (this.#known.has(name)) return;
    if (!(await this.ownedRecord(name, operation))) throw sandboxNotFound(PROVIDER, name, operation);
  }

  /**
   * The SDK sandbox of an owned sandbox: the one kept from launch or start,
   * else attached (`connect`) after an ownership check. A missing sandbox is
   * `NOT_FOUND`.
   */
  async sandbox(name: string, operation: string): Promise<MsbSandbox> {
    const kept = this.#known.get(name)?.attached ?? this.#attaching.get(name);
    if (kept) return kept;
    // Kept before the first await, so concurrent calls share one lookup and one attach.
    const attaching = this.#attach(name, operation);
    this.#attaching.set(name, attaching);
    try {
      await attaching;
      const known = this.#known.get(name);
      if (known && !known.attached) known.attached = attaching;
      return attaching;
    } finally {
      if (this.#attaching.get(name) === attaching) this.#attaching.delete(name);
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
    const known = this.#know(name);
    known.attached = Promise.resolve(sandbox);
    if (launchEnv) known.launchEnv = launchEnv;
  }

  /** True when this runtime launched or verified `name`. */
  knownOwned(name: string): boolean {
    return this.#known.has(name);
  }

  /** Records that `name` carries our ownership marker. */
  markOwned(name: string): void {
    this.#know(name);
  }

  /**
   * The environment `name` was launched with, sent under every command's own
   * (the SDK repeats it only from the `Sandbox` that created it).
   */
  launchEnv(name: string): Readonly<Record<string, string>> {
    return this.#known.get(name)?.launchEnv ?? {};
  }

  /**
   * Whether file calls in `name` can skip the symlink guard: true only for a
   * sandbox launched here in which no command has run yet.
   */
  isPristine(name: string): boolean {
    return this.#known.get(name)?.pristine === true;
  }

  /** Records that `name` was just launched here (`pristine`), or that a command is about to run in it (not). */
  setPristine(name: string, pristine: boolean): void {
    const known = this.#known.get(name);
    if (known) known.pristine = pristine;
  }

  /**
   * Detaches from `name` (after a stop, it must be attached again) and, unless
   * `keepOwnership`, forgets it altogether (after a destroy).
   */
  forget(name: string, options: { readonly keepOwnership?: boolean } = {}): void {
    if (!options.keepOwnership) {
      this.#known.delete(name);
      return;
    }
    const known = this.#known.get(name);
    if (known) {
      known.attached = undefined;
      known.pristine = false;
    }
  }

  #deadlineMs(deadline: Deadline): number {
    return typeof deadline === "number" ? deadline : this.options.timeouts[deadline];
  }

  #know(name: string): KnownSandbox {
    let known = this.#known.get(name);
    if (!known) {
      known = { launchEnv: {}, pristine: false };
      this.#known.set(name, known);
    }
    return known;
  }
}
