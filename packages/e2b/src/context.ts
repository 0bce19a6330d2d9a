import type { OpOptions, SandportError } from "@sandport/core";
import {
  BackgroundTasks,
  type ErrorSite,
  foreignSandbox,
  isOwnedBy,
  KnownSandboxes,
  type OperationCall,
  OperationRunner,
  type SdkLoader,
  sandboxNotFound,
} from "@sandport/core/adapter";
import { isNotFound, mapE2BError } from "./errors.js";
import { PROVIDER, sandboxIdOf, validSandboxId } from "./handle.js";
import { createE2BSdkLoader, type E2BSdkSource } from "./internal/sdk.js";
import type { E2BConnectionFields, E2BSandbox, E2BSandboxInfo, E2BSdkModule } from "./internal/sdk-types.js";
import type { ResolvedOptions } from "./options.js";

/** Port of envd inside every sandbox: E2B's own, never a caller's server. */
export const ENVD_PORT = 49983;

/** The timing of one SDK call: the time it may take, and the signal that cancels it. */
export interface CallTiming {
  /** Milliseconds left before the call's deadline. */
  remainingMs(): number;
  readonly signal?: AbortSignal;
}

/**
 * Per-runtime state shared by the operations: the SDK loader, connected
 * sandbox instances, which sandbox ids are known to be ours, which sandboxes
 * no command has touched yet, and background cleanup. Not exported from the package.
 */
export class E2BContext {
  readonly options: ResolvedOptions;
  /** The `e2b` SDK, loaded on first use. */
  readonly sdk: SdkLoader<E2BSdkModule>;
  /** Cleanup of abandoned launches; `E2BRuntime.settle()` waits for it. */
  readonly background: BackgroundTasks;
  /** Launch keys whose sandboxes are being destroyed in the background; hidden from `findByLabels`. */
  readonly condemned = new Set<string>();
  /** Every port method's frame: `runOperation` with E2B's errors, handles checked first. */
  readonly #operations = new OperationRunner({ provider: PROVIDER, mapError: mapE2BError, sandboxIdOf });
  readonly #instances = new Map<string, Promise<E2BSandbox>>();
  /** Which sandboxes are ours, and which no command has touched since this runtime launched them. */
  readonly known = new KnownSandboxes();

  constructor(options: ResolvedOptions, sdk?: E2BSdkSource, onBackgroundError?: (error: SandportError) => void) {
    this.options = options;
    this.sdk = createE2BSdkLoader(sdk);
    this.background = new BackgroundTasks(
      (error) => mapE2BError(error, { operation: "background cleanup" }),
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
    return this.#operations.run(op, site, defaultTimeoutMs, task);
  }

  /** {@link run} for the sandbox `handle` names, its id checked first (`INVALID_REQUEST`, before any request). */
  async onHandle<T>(
    handle: unknown,
    op: OpOptions | undefined,
    site: string | Omit<ErrorSite, "sandboxId">,
    defaultTimeoutMs: number,
    task: (sandboxId: string, call: OperationCall) => Promise<T>,
  ): Promise<T> {
    return this.#operations.onHandle(handle, op, site, defaultTimeoutMs, task);
  }

  /** {@link onHandle} on the connected instance of an owned sandbox (see {@link sandbox}). */
  onSandbox<T>(
    handle: unknown,
    op: OpOptions | undefined,
    site: string | Omit<ErrorSite, "sandboxId">,
    defaultTimeoutMs: number,
    task: (sandbox: E2BSandbox, call: OperationCall, sandboxId: string) => Promise<T>,
  ): Promise<T> {
    const operation = typeof site === "string" ? site : site.operation;
    return this.onHandle(handle, op, site, defaultTimeoutMs, async (sandboxId, call) =>
      task(await this.sandbox(sandboxId, operation, call), call, sandboxId),
    );
  }

  /** Connection fields for one SDK call: every value the SDK would otherwise read from `E2B_*` variables. */
  fields(timing: CallTiming, sandboxUrl?: string): E2BConnectionFields {
    const url = sandboxUrl ?? this.options.sandboxUrl;
    return {
      apiKey: this.options.apiKey,
      domain: this.options.domain,
      apiUrl: this.options.apiUrl,
      ...(url === undefined ? {} : { sandboxUrl: url }),
      debug: false,
      // 0 would mean "no timeout" to the SDK; the signal ends the call at the deadline anyway.
      requestTimeoutMs: Math.max(1, timing.remainingMs()),
      retries: this.options.rateLimitRetries,
      ...(timing.signal === undefined ? {} : { signal: timing.signal }),
    };
  }

  /** The envd base URL of one sandbox: the configured origin, else its per-sandbox host. */
  sandboxUrlFor(sandboxId: string): string {
    return this.options.sandboxUrl ?? `https://${ENVD_PORT}-${sandboxId}.${this.options.domain}`;
  }

  /** Keeps a connected instance for later calls on the same sandbox. */
  remember(sandbox: E2BSandbox): void {
    this.known.markOwned(sandbox.sandboxId);
    this.#instances.set(sandbox.sandboxId, Promise.resolve(sandbox));
  }

  /** Drops everything known about a sandbox (after destroy or pause). */
  forget(sandboxId: string, options: { readonly keepOwnership?: boolean } = {}): void {
    this.#instances.delete(sandboxId);
    this.known.forget(sandboxId, options);
  }

  /**
   * A sandbox's info: `undefined` when it does not exist, `FOREIGN_SANDBOX`
   * when it exists without our ownership marker. One `GET /sandboxes/{id}`.
   */
  async ownedInfo(sandboxId: string, operation: string, timing: CallTiming): Promise<E2BSandboxInfo | undefined> {
    validSandboxId(sandboxId);
    const sdk = await this.sdk();
    let info: E2BSandboxInfo;
    try {
      info = await sdk.Sandbox.getInfo(sandboxId, this.fields(timing));
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw mapE2BError(error, { operation, sandboxId });
    }
    if (!isOwnedBy(info.metadata, this.options.owner)) throw foreignSandbox(PROVIDER, sandboxId, operation);
    this.known.markOwned(sandboxId);
    return info;
  }

  /** Rejects `FOREIGN_SANDBOX` or `NOT_FOUND` unless `sandboxId` is ours; one lookup unless already known. */
  async assertOwned(sandboxId: string, operation: string, timing: CallTiming): Promise<void> {
    if (this.known.isOwned(sandboxId)) return;
    if (!(await this.ownedInfo(sandboxId, operation, timing))) throw sandboxNotFound(PROVIDER, sandboxId, operation);
  }

  /**
   * A connected SDK instance for an owned sandbox: the one kept from launch,
   * else a `connect` (after an ownership check for ids this runtime has not seen).
   * Connecting resumes a paused sandbox and extends its lifetime to at least `lifetimeMs`.
   */
  async sandbox(sandboxId: string, operation: string, timing: CallTiming): Promise<E2BSandbox> {
    const cached = this.#instances.get(sandboxId);
    if (cached) return cached;
    // Kept before the first await, so concurrent calls share one ownership check and connect;
    // shared, so no one caller's signal cancels it (each caller's deadline still applies to its wait).
    const shared = { remainingMs: timing.remainingMs };
    const connecting = this.#connect(sandboxId, operation, shared);
    this.#instances.set(sandboxId, connecting);
    try {
      return await connecting;
    } catch (error) {
      if (this.#instances.get(sandboxId) === connecting) this.#instances.delete(sandboxId);
      throw error;
    }
  }

  /** `connect` (resume) an owned sandbox with the configured lifetime; a missing one is `NOT_FOUND`. */
  async connect(sandboxId: string, operation: string, timing: CallTiming): Promise<E2BSandbox> {
    const sdk = await this.sdk();
    try {
      return await sdk.Sandbox.connect(sandboxId, {
        ...this.fields(timing, this.sandboxUrlFor(sandboxId)),
        timeoutMs: this.options.lifetimeMs,
      });
    } catch (error) {
      if (isNotFound(error)) throw sandboxNotFound(PROVIDER, sandboxId, operation, error);
      throw mapE2BError(error, { operation, sandboxId });
    }
  }

  async #connect(sandboxId: string, operation: string, timing: CallTiming): Promise<E2BSandbox> {
    await this.assertOwned(sandboxId, operation, timing);
    return this.connect(sandboxId, operation, timing);
  }
}

/** A timing of `ms` from now, for SDK calls outside a port call (background cleanup, best-effort kills). */
export function budget(ms: number): CallTiming {
  const until = performance.now() + ms;
  return { remainingMs: () => Math.max(0, Math.ceil(until - performance.now())) };
}
