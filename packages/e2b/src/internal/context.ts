import { SandportError } from "@sandport/core";
import { isNotFound, mapE2BError } from "../errors.js";
import { connectionFields, PROVIDER, type ResolvedOptions, sandboxUrlFor } from "../options.js";
import { assertSandboxId, foreignSandbox, isOwned } from "../ownership.js";
import { loadSdk } from "./sdk.js";
import type { E2BConnectionFields, E2BSandbox, E2BSandboxInfo, E2BSdkModule } from "./sdk-types.js";

/** Timing of one SDK call: its HTTP deadline and the signal that cancels it. */
export interface CallTiming {
  readonly requestTimeoutMs: number;
  readonly signal?: AbortSignal;
}

/**
 * State shared by one runtime's operations: the lazily loaded SDK, connected
 * sandbox instances, which sandbox ids are known to be ours, and background
 * cleanups. Not exported from the package.
 */
export class RuntimeContext {
  readonly options: ResolvedOptions;
  /** Launch keys whose sandboxes are being destroyed in the background; hidden from `findByLabels`. */
  readonly condemnedLaunchKeys = new Set<string>();
  readonly #sdkSource: E2BSdkModule | (() => Promise<E2BSdkModule>) | undefined;
  readonly #onBackgroundError: ((error: Error) => void) | undefined;
  #sdk: Promise<E2BSdkModule> | undefined;
  readonly #instances = new Map<string, Promise<E2BSandbox>>();
  readonly #owned = new Set<string>();
  /** Sandboxes launched here in which no command has run yet: nothing in them can be a symlink. */
  readonly #pristine = new Set<string>();
  readonly #background = new Set<Promise<void>>();
  readonly #backgroundErrors: SandportError[] = [];

  constructor(
    options: ResolvedOptions,
    sdk: E2BSdkModule | (() => Promise<E2BSdkModule>) | undefined,
    onBackgroundError: ((error: Error) => void) | undefined,
  ) {
    this.options = options;
    this.#sdkSource = sdk;
    this.#onBackgroundError = onBackgroundError;
  }

  /** The SDK, loaded on first use. A failed load is not cached, so installing the SDK later works. */
  sdk(): Promise<E2BSdkModule> {
    if (!this.#sdk) {
      this.#sdk = loadSdk(this.#sdkSource);
      this.#sdk.catch(() => {
        this.#sdk = undefined;
      });
    }
    return this.#sdk;
  }

  /** Connection fields for one control-plane or connect call. */
  fields(timing: CallTiming, sandboxUrl?: string): E2BConnectionFields {
    return connectionFields(this.options, { ...timing, sandboxUrl });
  }

  /** Records that `sandboxId` carries our ownership marker. */
  markOwned(sandboxId: string): void {
    this.#owned.add(sandboxId);
  }

  /** True when this runtime launched or verified `sandboxId`. */
  knownOwned(sandboxId: string): boolean {
    return this.#owned.has(sandboxId);
  }

  /** Keeps a connected instance for later calls on the same sandbox. */
  remember(sandbox: E2BSandbox): void {
    this.#owned.add(sandbox.sandboxId);
    this.#instances.set(sandbox.sandboxId, Promise.resolve(sandbox));
  }

  /** Records that `sandboxId` was just launched here: only this runtime's file writes have touched it. */
  markPristine(sandboxId: string): void {
    this.#pristine.add(sandboxId);
  }

  /** Records that a command is about to run in `sandboxId` (it may create symlinks from now on). */
  markCommandRun(sandboxId: string): void {
    this.#pristine.delete(sandboxId);
  }

  /** True while no command has run in a sandbox launched by this runtime. */
  isPristine(sandboxId: string): boolean {
    return this.#pristine.has(sandboxId);
  }

  /** Drops everything known about a sandbox (after destroy or pause). */
  forget(sandboxId: string, options: { keepOwnership?: boolean } = {}): void {
    this.#instances.delete(sandboxId);
    this.#pristine.delete(sandboxId);
    if (!options.keepOwnership) this.#owned.delete(sandboxId);
  }

  /**
   * Reads a sandbox's info. Resolves `undefined` when it does not exist;
   * rejects `FOREIGN_SANDBOX` when it exists without our ownership marker.
   */
  async ownedInfo(sandboxId: string, operation: string, timing: CallTiming): Promise<E2BSandboxInfo | undefined> {
    assertSandboxId(sandboxId);
    const sdk = await this.sdk();
    let info: E2BSandboxInfo;
    try {
      info = await sdk.Sandbox.getInfo(sandboxId, this.fields(timing));
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw mapE2BError(error, { operation, sandboxId });
    }
    if (!isOwned(info.metadata, this.options.owner)) throw foreignSandbox(sandboxId, operation);
    this.#owned.add(sandboxId);
    return info;
  }

  /** Rejects `FOREIGN_SANDBOX` or `NOT_FOUND` unless `sandboxId` is ours; one lookup unless already known. */
  async assertOwned(sandboxId: string, operation: string, timing: CallTiming): Promise<void> {
    if (this.#owned.has(sandboxId)) return;
    const info = await this.ownedInfo(sandboxId, operation, timing);
    if (!info) throw sandboxNotFound(sandboxId, operation);
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
    const shared = { requestTimeoutMs: timing.requestTimeoutMs };
    const connecting = (async () => {
      await this.assertOwned(sandboxId, operation, shared);
      const sdk = await this.sdk();
      try {
        return await sdk.Sandbox.connect(sandboxId, {
          ...this.fields(shared, sandboxUrlFor(this.options, sandboxId)),
          timeoutMs: this.options.lifetimeMs,
        });
      } catch (error) {
        if (isNotFound(error)) throw sandboxNotFound(sandboxId, operation, error);
        throw mapE2BError(error, { operation, sandboxId });
      }
    })();
    this.#instances.set(sandboxId, connecting);
    try {
      return await connecting;
    } catch (error) {
      if (this.#instances.get(sandboxId) === connecting) this.#instances.delete(sandboxId);
      throw error;
    }
  }

  /** Runs `work` in the background; its failure is reported, never lost. */
  track(work: () => Promise<void>): void {
    const running = work()
      .catch((error: unknown) => {
        const failure = mapE2BError(error, { operation: "background cleanup" });
        this.#backgroundErrors.push(failure);
        this.#onBackgroundError?.(failure);
      })
      .finally(() => this.#background.delete(running));
    this.#background.add(running);
  }

  /** Waits for background work; resolves with (and clears) the failures it had. */
  async settle(): Promise<SandportError[]> {
    while (this.#background.size > 0) await Promise.all([...this.#background]);
    return this.#backgroundErrors.splice(0);
  }
}

/** `NOT_FOUND` for a sandbox that does not exist. */
export function sandboxNotFound(sandboxId: string, operation: string, cause?: unknown): SandportError {
  return new SandportError({
    code: "NOT_FOUND",
    provider: PROVIDER,
    retryable: false,
    cause,
    message: `e2b sandbox ${sandboxId} does not exist (${operation})`,
    details: { sandboxId, operation },
  });
}
