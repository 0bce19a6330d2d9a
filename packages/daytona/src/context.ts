import type { OpOptions, SandportError } from "@sandport/core";
import {
  type AbandonedCreate,
  BackgroundTasks,
  type ErrorSite,
  foreignSandbox,
  isOwnedBy,
  KnownSandboxes,
  type LaunchReclaimSettings,
  type OperationCall,
  OperationRunner,
  reclaimAbandonedLaunch,
  type SdkLoader,
  sandboxNotFound,
} from "@sandport/core/adapter";
import { isNotFound, mapDaytonaError } from "./errors.js";
import { PROVIDER, sandboxIdOf, validSandboxId } from "./handle.js";
import { lowLevelApi } from "./internal/low-level-api.js";
import { createDaytonaSdkLoader, type DaytonaSdkSource } from "./internal/sdk.js";
import type {
  DaytonaClient,
  DaytonaSandbox,
  DaytonaSandboxApi,
  DaytonaSandboxRecord,
  DaytonaSdkModule,
  LowLevelRequestOptions,
} from "./internal/sdk-types.js";
import { deleteSandbox } from "./lifecycle.js";
import { findByLaunchKey } from "./lookup.js";
import type { ResolvedOptions } from "./options.js";

/** The timing of one SDK call: the time it may take, and the signal that cancels it where the SDK can be cancelled. */
export interface CallTiming {
  /** Milliseconds left before the call's deadline. */
  remainingMs(): number;
  readonly signal?: AbortSignal;
}

/** States in which a sandbox is on its way to `started`: calls wait for it. */
const BOOTING = new Set([
  "creating",
  "starting",
  "pending_build",
  "building_snapshot",
  "pulling_snapshot",
  "restoring",
]);

/** A deadline of `ms` milliseconds as whole seconds for the SDK's `timeout` arguments (at least 1: 0 means none). */
export function seconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

/** A timing of `ms` from now, for SDK calls outside a port call (background cleanup, best-effort kills). */
export function budget(ms: number): CallTiming {
  const until = performance.now() + ms;
  return { remainingMs: () => Math.max(0, Math.ceil(until - performance.now())) };
}

/**
 * Per-runtime state shared by the operations: the frame of every port method
 * (`run`, `onHandle`: the kit's `OperationRunner` with Daytona's error table),
 * the SDK loader and the one client built from it, SDK sandbox instances,
 * which sandbox ids are known to be ours and which no command has touched yet
 * (`KnownSandboxes`), each sandbox's home directory, and background work. Not
 * exported from the package.
 */
export class DaytonaContext extends OperationRunner {
  readonly options: ResolvedOptions;
  /** The Daytona SDK, loaded on first use. */
  readonly sdk: SdkLoader<DaytonaSdkModule>;
  /** Background work (cleanup of abandoned launches and replaced sandboxes); `DaytonaRuntime.settle()` waits for it. */
  readonly background: BackgroundTasks;
  /** Launch keys whose sandboxes are being destroyed in the background; hidden from `findByLabels`. */
  readonly condemned = new Set<string>();
  /** Which sandboxes are ours, and which no command has touched since this runtime launched them. */
  readonly known = new KnownSandboxes();
  /** Destroys, in the background, whatever a launch the caller gave up on created (`reclaimAbandonedLaunch`). */
  readonly reclaimLaunch: <Created>(launch: AbandonedCreate<Created>) => void;
  #client: Promise<DaytonaClient> | undefined;
  readonly #instances = new Map<string, Promise<DaytonaSandbox>>();
  readonly #homes = new Map<string, Promise<string>>();

  constructor(options: ResolvedOptions, sdk?: DaytonaSdkSource, onBackgroundError?: (error: SandportError) => void) {
    super({ provider: PROVIDER, mapError: mapDaytonaError, sandboxIdOf });
    this.options = options;
    this.sdk = createDaytonaSdkLoader(sdk);
    this.background = new BackgroundTasks(
      (error) => mapDaytonaError(error, { operation: "background work" }),
      onBackgroundError,
    );
    const { timeouts } = options;
    const reclaim: LaunchReclaimSettings = {
      destroy: async (sandboxId) => void (await deleteSandbox(this, sandboxId, budget(timeouts.destroyMs))),
      findByLaunchKey: (launchKey) => findByLaunchKey(this, launchKey, budget(timeouts.lookupMs)),
      outcomeUnknown: mapDaytonaError.outcomeUnknown,
      condemned: this.condemned,
      background: this.background,
      cleanupMs: options.orphanCleanupMs,
    };
    this.reclaimLaunch = (launch) => reclaimAbandonedLaunch({ ...launch, ...reclaim });
  }

  /** {@link onHandle} on the SDK instance of an owned, started sandbox (see {@link sandbox}). */
  onSandbox<T>(
    handle: unknown,
    op: OpOptions | undefined,
    site: string | Omit<ErrorSite, "sandboxId">,
    defaultTimeoutMs: number,
    task: (sandbox: DaytonaSandbox, call: OperationCall, sandboxId: string) => Promise<T>,
  ): Promise<T> {
    const operation = typeof site === "string" ? site : site.operation;
    return this.onHandle(handle, op, site, defaultTimeoutMs, async (sandboxId, call) =>
      task(await this.sandbox(sandboxId, operation, call), call, sandboxId),
    );
  }

  /**
   * The one Daytona client of this runtime, built on first use with every
   * connection field explicit, so the SDK reads no `DAYTONA_*` variable and
   * no `.env` file for them.
   */
  client(): Promise<DaytonaClient> {
    if (!this.#client) {
      const connecting = this.#connect();
      connecting.catch(() => {
        if (this.#client === connecting) this.#client = undefined;
      });
      this.#client = connecting;
    }
    return this.#client;
  }

  /** The client's low-level sandbox API (cancellable requests, the API's own sandbox records). */
  async api(): Promise<DaytonaSandboxApi> {
    return lowLevelApi(await this.client());
  }

  /** Per-request options of the low-level API for one call: its deadline and signal. */
  requestOptions(timing: CallTiming): LowLevelRequestOptions {
    return { timeout: Math.max(1, timing.remainingMs()), ...(timing.signal ? { signal: timing.signal } : {}) };
  }

  /** A sandbox as the API answers it; `undefined` when it does not exist (or is destroyed). One `GET /api/sandbox/{id}`. */
  async record(sandboxId: string, operation: string, timing: CallTiming): Promise<DaytonaSandboxRecord | undefined> {
    const api = await this.api();
    try {
      const { data } = await api.getSandbox(
        validSandboxId(sandboxId),
        undefined,
        undefined,
        this.requestOptions(timing),
      );
      return data.state === "destroyed" ? undefined : data;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw mapDaytonaError(error, { operation, sandboxId });
    }
  }

  /** {@link record}, refused with `FOREIGN_SANDBOX` when the sandbox lacks our ownership label. */
  async ownedRecord(
    sandboxId: string,
    operation: string,
    timing: CallTiming,
  ): Promise<DaytonaSandboxRecord | undefined> {
    const found = await this.record(sandboxId, operation, timing);
    if (!found) return undefined;
    if (!isOwnedBy(found.labels, this.options.owner)) throw foreignSandbox(PROVIDER, sandboxId, operation);
    this.known.markOwned(sandboxId);
    return found;
  }

  /** Rejects `FOREIGN_SANDBOX` or `NOT_FOUND` unless `sandboxId` is ours; one lookup unless already known. */
  async assertOwned(sandboxId: string, operation: string, timing: CallTiming): Promise<void> {
    if (this.known.isOwned(sandboxId)) return;
    if (!(await this.ownedRecord(sandboxId, operation, timing))) throw sandboxNotFound(PROVIDER, sandboxId, operation);
  }

  /**
   * The SDK instance of an owned sandbox: the one kept from launch, else a
   * `get` (ownership checked on the labels it reports). A sandbox still
   * booting is waited for; concurrent calls share one lookup.
   */
  async sandbox(sandboxId: string, operation: string, timing: CallTiming): Promise<DaytonaSandbox> {
    const cached = this.#instances.get(sandboxId);
    if (cached) return cached;
    const looking = this.#lookUp(sandboxId, operation, { remainingMs: timing.remainingMs });
    this.#instances.set(sandboxId, looking);
    try {
      return await looking;
    } catch (error) {
      if (this.#instances.get(sandboxId) === looking) this.#instances.delete(sandboxId);
      throw error;
    }
  }

  /** The sandbox user's home directory, asked once per sandbox: where session commands find their way. */
  homeOf(sandbox: DaytonaSandbox): Promise<string> {
    let home = this.#homes.get(sandbox.id);
    if (!home) {
      home = sandbox.getUserHomeDir().then((dir) => {
        if (typeof dir !== "string" || !dir.startsWith("/")) throw new Error(`the daemon reported home ${String(dir)}`);
        return dir;
      });
      home.catch(() => this.#homes.delete(sandbox.id));
      this.#homes.set(sandbox.id, home);
    }
    return home;
  }

  /** Keeps an SDK instance for later calls on the same sandbox. */
  remember(sandbox: DaytonaSandbox): void {
    this.known.markOwned(sandbox.id);
    this.#instances.set(sandbox.id, Promise.resolve(sandbox));
  }

  /** Drops what is kept about a sandbox (after destroy, stop or replacement); `keepOwnership` keeps knowing it is ours. */
  forget(sandboxId: string, options: { readonly keepOwnership?: boolean } = {}): void {
    this.#instances.delete(sandboxId);
    this.#homes.delete(sandboxId);
    this.known.forget(sandboxId, options);
  }

  async #connect(): Promise<DaytonaClient> {
    const sdk = await this.sdk();
    const { credentials, apiUrl, target, timeouts } = this.options;
    return new sdk.Daytona({
      ...credentials,
      apiUrl,
      target,
      useDeprecatedPolling: true,
      otelEnabled: false,
      // No single request may outlive the longest deadline of any port call.
      requestTimeoutMs: Math.max(timeouts.launchMs, timeouts.lookupMs, timeouts.fileMs, timeouts.lifecycleMs),
    });
  }

  async #lookUp(sandboxId: string, operation: string, timing: CallTiming): Promise<DaytonaSandbox> {
    const client = await this.client();
    let sandbox: DaytonaSandbox;
    try {
      sandbox = await client.get(validSandboxId(sandboxId));
    } catch (error) {
      if (isNotFound(error)) throw sandboxNotFound(PROVIDER, sandboxId, operation, error);
      throw mapDaytonaError(error, { operation, sandboxId });
    }
    if (sandbox.state === "destroyed" || sandbox.state === "destroying") {
      throw sandboxNotFound(PROVIDER, sandboxId, operation);
    }
    if (!isOwnedBy(sandbox.labels, this.options.owner)) throw foreignSandbox(PROVIDER, sandboxId, operation);
    this.known.markOwned(sandboxId);
    if (sandbox.state !== undefined && BOOTING.has(sandbox.state)) {
      await sandbox.waitUntilStarted(seconds(timing.remainingMs()));
    }
    return sandbox;
  }
}
