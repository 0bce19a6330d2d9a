import type { OpOptions, SandportError } from "@sandport/core";
import {
  type AbandonedCreate,
  BackgroundTasks,
  type ErrorSite,
  foreignSandbox,
  type LaunchReclaimSettings,
  type OperationCall,
  OperationRunner,
  reclaimAbandonedLaunch,
  type SdkLoader,
  sandboxNotFound,
} from "@sandport/core/adapter";
import { isNotFound, mapVercelError } from "./errors.js";
import { PROVIDER, sandboxNameOf } from "./handle.js";
import { createVercelSdkLoader, type VercelSdkSource } from "./internal/sdk.js";
import type { VercelConnection, VercelSandbox, VercelSdkModule } from "./internal/sdk-types.js";
import { deleteSandbox } from "./lifecycle.js";
import { findByLaunchKey, findOwnedRow } from "./lookup.js";
import type { ResolvedOptions } from "./options.js";
import { NameOwnership } from "./ownership.js";
import { guardedFetch } from "./transport.js";

/** The signal of one SDK call, which bounds it (and the SDK's own retries). */
export interface CallTiming {
  readonly signal: AbortSignal;
}

/**
 * Per-runtime state shared by the operations: the SDK loader, the sandbox
 * instances (each bound to the connection it was fetched with), which names
 * are known to be ours and when they were created, which sandboxes no
 * command has touched yet, and background cleanup. Not exported from the package.
 */
export class VercelContext {
  readonly options: ResolvedOptions;
  /** The ownership boundary: the name prefix and the `sandport.owner` tag. */
  readonly ownership: NameOwnership;
  /** The `@vercel/sandbox` SDK, loaded on first use. */
  readonly sdk: SdkLoader<VercelSdkModule>;
  /** Cleanup of abandoned launches; `VercelRuntime.settle()` waits for it. */
  readonly background: BackgroundTasks;
  /** Launch keys whose sandboxes are being destroyed in the background; hidden from `findByLabels`. */
  readonly condemned = new Set<string>();
  /** Destroys, in the background, what a launch that failed after its create produced (`reclaimAbandonedLaunch`). */
  readonly reclaimLaunch: (launch: AbandonedCreate<VercelSandbox>) => void;
  /** Every port method's frame: `runOperation` with this provider's errors, handles checked first. */
  readonly operations: OperationRunner;
  readonly #fetch: typeof globalThis.fetch;
  readonly #instances = new Map<string, Promise<VercelSandbox>>();
  /** Names known to be ours, with their creation time (epoch ms) when known. */
  readonly #owned = new Map<string, number | undefined>();
  /** Sandboxes launched here in which no command has run yet: nothing in them can be a symlink. */
  readonly #pristine = new Set<string>();

  constructor(options: ResolvedOptions, sdk?: VercelSdkSource, onBackgroundError?: (error: SandportError) => void) {
    this.options = options;
    this.ownership = new NameOwnership(options.namePrefix, options.owner);
    this.sdk = createVercelSdkLoader(sdk);
    this.#fetch = guardedFetch(options.fetch ?? ((input, init) => globalThis.fetch(input, init)));
    this.background = new BackgroundTasks(
      (error) => mapVercelError(error, { operation: "background cleanup" }),
      onBackgroundError,
    );
    const { timeouts } = options;
    const reclaim: LaunchReclaimSettings = {
      destroy: async (name) => void (await deleteSandbox(this, name, budget(timeouts.destroyMs))),
      findByLaunchKey: (launchKey) => findByLaunchKey(this, launchKey, budget(timeouts.lookupMs)),
      outcomeUnknown: mapVercelError.outcomeUnknown,
      condemned: this.condemned,
      background: this.background,
      cleanupMs: options.orphanCleanupMs,
    };
    this.reclaimLaunch = (launch) => reclaimAbandonedLaunch({ ...launch, ...reclaim });
    this.operations = new OperationRunner({
      provider: PROVIDER,
      mapError: mapVercelError,
      sandboxIdOf: (handle, operation) => this.ourName(sandboxNameOf(handle, operation), operation),
    });
  }

  /** What every static SDK call carries: all three credentials, so no ambient lookup can fire, and the fetch. */
  connection(timing: CallTiming): VercelConnection {
    const { token, teamId, projectId } = this.options;
    return { token, teamId, projectId, fetch: this.#fetch, signal: timing.signal };
  }

  /** `operations.onHandle` on the SDK instance of an owned sandbox (see {@link sandbox}). */
  onSandbox<T>(
    handle: unknown,
    op: OpOptions | undefined,
    site: string | Omit<ErrorSite, "sandboxId">,
    defaultTimeoutMs: number,
    task: (sandbox: VercelSandbox, call: OperationCall, name: string) => Promise<T>,
  ): Promise<T> {
    const operation = typeof site === "string" ? site : site.operation;
    return this.operations.onHandle(handle, op, site, defaultTimeoutMs, async (name, call) =>
      task(await this.sandbox(name, operation), call, name),
    );
  }

  /** `name` when it lies inside the prefix; `FOREIGN_SANDBOX` otherwise, without a request. */
  ourName(name: string, operation: string): string {
    if (this.ownership.isInside(name)) return name;
    throw foreignSandbox(PROVIDER, name, operation, `its name does not start with ${this.options.namePrefix}`);
  }

  /** Records that `name` is ours, created at `createdAt` (epoch ms) when known. */
  markOwned(name: string, createdAt?: number): void {
    this.#owned.set(name, createdAt ?? this.#owned.get(name));
  }

  /** True when this runtime launched or verified `name`. */
  knownOwned(name: string): boolean {
    return this.#owned.has(name);
  }

  /** When `name` was created (epoch ms), if this runtime knows. */
  createdAtOf(name: string): number | undefined {
    return this.#owned.get(name);
  }

  /** Keeps an SDK instance for later calls on the same sandbox. */
  remember(sandbox: VercelSandbox): void {
    this.markOwned(sandbox.name, sandbox.createdAt.getTime());
    this.#instances.set(sandbox.name, Promise.resolve(sandbox));
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

  /** Drops everything known about a sandbox (after a verified destroy). */
  forget(name: string): void {
    this.#instances.delete(name);
    this.#pristine.delete(name);
    this.#owned.delete(name);
  }

  /**
   * The SDK instance of an owned sandbox: the one kept from launch, else
   * `Sandbox.get` (which never resumes a stopped sandbox), after a list-based
   * ownership check for names this runtime has not seen. A missing sandbox
   * is `NOT_FOUND`, one without our tag `FOREIGN_SANDBOX`.
   */
  async sandbox(name: string, operation: string): Promise<VercelSandbox> {
    const cached = this.#instances.get(name);
    if (cached) return cached;
    // Kept before the first await, so concurrent calls share one lookup. Shared, so no one caller's signal
    // cancels it: it has its own deadline, and each caller's deadline still bounds its wait.
    const fetching = this.#fetchInstance(name, operation, budget(this.options.timeouts.lookupMs));
    this.#instances.set(name, fetching);
    try {
      return await fetching;
    } catch (error) {
      if (this.#instances.get(name) === fetching) this.#instances.delete(name);
      throw error;
    }
  }

  async #fetchInstance(name: string, operation: string, timing: CallTiming): Promise<VercelSandbox> {
    if (!this.knownOwned(name) && !(await findOwnedRow(this, name, operation, timing))) {
      throw sandboxNotFound(PROVIDER, name, operation);
    }
    const sdk = await this.sdk();
    try {
      return await sdk.Sandbox.get({ ...this.connection(timing), name });
    } catch (error) {
      if (isNotFound(error)) throw sandboxNotFound(PROVIDER, name, operation, error);
      throw mapVercelError(error, { operation, sandboxId: name });
    }
  }
}

/** A timing of `ms` from now, for SDK calls outside a port call (background cleanup, best-effort kills). */
export function budget(ms: number, also?: AbortSignal): CallTiming {
  const timeout = AbortSignal.timeout(ms);
  return { signal: also ? AbortSignal.any([timeout, also]) : timeout };
}

/** `work`, or the reason `signal` fires, whichever comes first (`work` is left to settle on its own). */
export function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  work.catch(() => undefined);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
