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
import { isNotFound, mapModalError } from "./errors.js";
import { PROVIDER, sandboxIdOf, validSandboxId } from "./handle.js";
import { type CallScope, inScope } from "./internal/call-scope.js";
import { createPinnedClient } from "./internal/pinned-client.js";
import { createModalSdkLoader, type ModalSdkSource } from "./internal/sdk.js";
import type { ModalApp, ModalClient, ModalImage, ModalSandbox, ModalSdkModule } from "./internal/sdk-types.js";
import type { ResolvedOptions } from "./options.js";

/** The timing of SDK work: the time it may take, and the signal that cancels it. */
export type CallTiming = CallScope;

/** An owned, running sandbox and its tags, as a lookup found it. */
export interface OwnedSandbox {
  readonly sandbox: ModalSandbox;
  readonly tags: Readonly<Record<string, string>>;
}

/**
 * Per-runtime state shared by the operations: the SDK loader, the one
 * pinned client, the App and built images, sandbox objects of sandboxes known
 * to be ours, which of them no command has touched yet, and background
 * cleanup. Not exported from the package.
 */
export class ModalContext {
  readonly options: ResolvedOptions;
  /** The `modal` SDK, loaded on first use. */
  readonly sdk: SdkLoader<ModalSdkModule>;
  /** Cleanup of abandoned launches; `ModalRuntime.settle()` waits for it. */
  readonly background: BackgroundTasks;
  /** Launch keys whose sandboxes are being destroyed in the background; hidden from `findByLabels`. */
  readonly condemned = new Set<string>();
  #client: Promise<ModalClient> | undefined;
  #app: Promise<ModalApp> | undefined;
  readonly #images = new Map<string, Promise<ModalImage>>();
  readonly #sandboxes = new Map<string, ModalSandbox>();
  readonly #owned = new Set<string>();
  /** Sandboxes launched here in which no command has run yet: nothing in them can be a symlink. */
  readonly #pristine = new Set<string>();
  /** The ports each sandbox launched here declared (`LaunchSpec.ports`). */
  readonly #ports = new Map<string, readonly number[]>();

  constructor(options: ResolvedOptions, sdk?: ModalSdkSource, onBackgroundError?: (error: SandportError) => void) {
    this.options = options;
    this.sdk = createModalSdkLoader(sdk);
    this.background = new BackgroundTasks(
      (error) => mapModalError(error, { operation: "background cleanup" }),
      onBackgroundError,
    );
  }

  /**
   * Runs one port method (`runOperation`): per-call options checked, deadline
   * applied, errors mapped at `site`; every control-plane call the SDK makes
   * for it carries the call's deadline and signal (`inScope`).
   */
  run<T>(
    op: OpOptions | undefined,
    site: ErrorSite,
    defaultTimeoutMs: number,
    task: (call: OperationCall) => Promise<T>,
  ): Promise<T> {
    const mapError = (error: unknown) => mapModalError(error, site);
    return runOperation(op, { provider: PROVIDER, operation: site.operation, defaultTimeoutMs, mapError }, (call) =>
      inScope(call, () => task(call)),
    );
  }

  /** {@link run} for the sandbox `handle` names, its id checked first (`INVALID_REQUEST`, before any request). */
  onHandle<T>(
    handle: unknown,
    op: OpOptions | undefined,
    site: string | Omit<ErrorSite, "sandboxId">,
    defaultTimeoutMs: number,
    task: (sandboxId: string, call: OperationCall) => Promise<T>,
  ): Promise<T> {
    const where = typeof site === "string" ? { operation: site } : site;
    let sandboxId: string;
    try {
      sandboxId = sandboxIdOf(handle, where.operation);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.run(op, { ...where, sandboxId }, defaultTimeoutMs, (call) => task(sandboxId, call));
  }

  /** {@link onHandle} on the sandbox object of an owned sandbox (see {@link sandbox}). */
  onSandbox<T>(
    handle: unknown,
    op: OpOptions | undefined,
    site: string | Omit<ErrorSite, "sandboxId">,
    defaultTimeoutMs: number,
    task: (sandbox: ModalSandbox, call: OperationCall, sandboxId: string) => Promise<T>,
  ): Promise<T> {
    const operation = typeof site === "string" ? site : site.operation;
    return this.onHandle(handle, op, site, defaultTimeoutMs, async (sandboxId, call) =>
      task(await this.sandbox(sandboxId, operation), call, sandboxId),
    );
  }

  /**
   * The one client of this runtime, built on first use from the options alone
   * (see `createPinnedClient`). A failure is not kept: the next call tries again.
   */
  client(): Promise<ModalClient> {
    this.#client ??= this.sdk().then((sdk) =>
      createPinnedClient(sdk, {
        serverUrl: this.options.serverUrl,
        tokenId: this.options.tokenId,
        tokenSecret: this.options.tokenSecret,
        environment: this.options.environment,
        maxThrottleWaitSecs: this.options.maxThrottleWaitMs / 1000,
      }),
    );
    const pending = this.#client;
    return pending.catch((error: unknown) => {
      if (this.#client === pending) this.#client = undefined;
      throw error;
    });
  }

  /** The App sandboxes are created in (created if missing), looked up once. */
  app(): Promise<ModalApp> {
    this.#app ??= this.client().then((client) =>
      client.apps.fromName(this.options.appName, { environment: this.options.environment, createIfMissing: true }),
    );
    const pending = this.#app;
    return pending.catch((error: unknown) => {
      if (this.#app === pending) this.#app = undefined;
      throw error;
    });
  }

  /** An image by registry reference or id (`im-…`), built (resolved to an id) once per reference. */
  image(reference: string, app: ModalApp): Promise<ModalImage> {
    let image = this.#images.get(reference);
    if (!image) {
      image = this.client().then(async (client) => {
        const unbuilt = /^im-[A-Za-z0-9]+$/.test(reference)
          ? await client.images.fromId(reference)
          : client.images.fromRegistry(reference);
        return unbuilt.build(app);
      });
      this.#images.set(reference, image);
    }
    const pending = image;
    return pending.catch((error: unknown) => {
      if (this.#images.get(reference) === pending) this.#images.delete(reference);
      throw error;
    });
  }

  /**
   * An owned, running sandbox and its tags: `undefined` when it does not
   * exist or has finished, `FOREIGN_SANDBOX` when it lacks our ownership tag.
   * Two requests: a poll (is it running?) and its tags.
   */
  async ownedSandbox(sandboxId: string, operation: string): Promise<OwnedSandbox | undefined> {
    validSandboxId(sandboxId);
    const client = await this.client();
    const sandbox = this.#sandboxes.get(sandboxId) ?? (await client.sandboxes.fromId(sandboxId));
    let tags: Record<string, string>;
    try {
      if ((await sandbox.poll()) !== null) return this.#gone(sandboxId);
      tags = await sandbox.getTags();
    } catch (error) {
      if (isNotFound(error)) return this.#gone(sandboxId);
      throw mapModalError(error, { operation, sandboxId });
    }
    if (!isOwnedBy(tags, this.options.owner)) throw foreignSandbox(PROVIDER, sandboxId, operation);
    this.remember(sandbox);
    return { sandbox, tags };
  }

  /** Rejects `FOREIGN_SANDBOX` or `NOT_FOUND` unless `sandboxId` is ours and running; no request once known. */
  async assertOwned(sandboxId: string, operation: string): Promise<void> {
    if (this.#owned.has(sandboxId)) return;
    if (!(await this.ownedSandbox(sandboxId, operation))) throw sandboxNotFound(PROVIDER, sandboxId, operation);
  }

  /** The sandbox object of an owned sandbox: kept from launch or a lookup, else after an ownership check. */
  async sandbox(sandboxId: string, operation: string): Promise<ModalSandbox> {
    const known = this.#owned.has(sandboxId) ? this.#sandboxes.get(sandboxId) : undefined;
    if (known) return known;
    const found = await this.ownedSandbox(sandboxId, operation);
    if (!found) throw sandboxNotFound(PROVIDER, sandboxId, operation);
    return found.sandbox;
  }

  /**
   * Records a sandbox as ours and keeps its object for later calls, unless one
   * is kept already (that one may have commands running through it).
   */
  remember(sandbox: ModalSandbox): void {
    this.#owned.add(sandbox.sandboxId);
    if (!this.#sandboxes.has(sandbox.sandboxId)) this.#sandboxes.set(sandbox.sandboxId, sandbox);
  }

  /** True when this runtime launched or verified `sandboxId`. */
  knownOwned(sandboxId: string): boolean {
    return this.#owned.has(sandboxId);
  }

  /** Records that `sandboxId` was just launched here with `ports` declared: only this runtime's writes touched it. */
  markLaunched(sandboxId: string, ports: readonly number[]): void {
    this.#pristine.add(sandboxId);
    this.#ports.set(sandboxId, ports);
  }

  /** The ports a sandbox launched here declared; `undefined` for one this runtime did not launch. */
  declaredPorts(sandboxId: string): readonly number[] | undefined {
    return this.#ports.get(sandboxId);
  }

  /** Records that a command is about to run in `sandboxId` (it may create symlinks from now on). */
  markCommandRun(sandboxId: string): void {
    this.#pristine.delete(sandboxId);
  }

  /** True while no command has run in a sandbox launched by this runtime. */
  isPristine(sandboxId: string): boolean {
    return this.#pristine.has(sandboxId);
  }

  /** Drops everything known about a sandbox (after destroy), releasing its object's connection. */
  forget(sandboxId: string): void {
    this.#sandboxes.get(sandboxId)?.detach();
    this.#sandboxes.delete(sandboxId);
    this.#owned.delete(sandboxId);
    this.#pristine.delete(sandboxId);
    this.#ports.delete(sandboxId);
  }

  #gone(sandboxId: string): undefined {
    this.forget(sandboxId);
    return undefined;
  }
}

/** A timing of `ms` from now, for SDK work outside a port call (background cleanup, kills). */
export function budget(ms: number): CallTiming {
  const until = performance.now() + ms;
  return { remainingMs: () => Math.max(0, Math.ceil(until - performance.now())) };
}
