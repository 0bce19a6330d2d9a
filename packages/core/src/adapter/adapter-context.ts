import type { SandportError } from "../errors/sandport-error.js";
import type { Labels } from "../port/labels.js";
import type { OpOptions } from "../port/op-options.js";
import { LAUNCH_KEY_LABEL } from "../port/reserved-labels.js";
import { BackgroundTasks } from "./background-tasks.js";
import type { ErrorMapper, ErrorSite } from "./error-mapper.js";
import { KnownSandboxes } from "./known-sandboxes.js";
import { isOwnedBy } from "./ownership.js";
import { RecentMap } from "./recent-map.js";
import { type AbandonedCreate, type AbandonedLaunch, reclaimAbandonedLaunch } from "./reclaim-launch.js";
import { type OperationCall, runOperation } from "./run-operation.js";
import { foreignSandbox, sandboxNotFound } from "./sandbox-errors.js";
import type { SdkLoader } from "./sdk-loader.js";

/** The time one SDK call may take and the signal that cancels it: an `OperationCall`, or a {@link createCallBudget}. */
export interface CallBudget {
  /** Milliseconds left before the call's deadline (never negative). */
  remainingMs(): number;
  /** Cancels the call; absent for work outside a port call (background cleanup, best-effort kills). */
  readonly signal?: AbortSignal;
}

/** A budget of `ms` from now, for SDK calls outside a port call (background cleanup, best-effort kills). */
export function createCallBudget(ms: number): CallBudget {
  const until = performance.now() + ms;
  return { remainingMs: () => Math.max(0, Math.ceil(until - performance.now())) };
}

/** What {@link AdapterContext.reclaimLaunch} needs from the adapter: how to destroy and find its sandboxes, and the budget. */
export type ReclaimPrimitives = Pick<
  AbandonedLaunch<unknown>,
  "destroy" | "findByLaunchKey" | "cleanupMs" | "listingTrustedAfterMs"
>;

/** The options every adapter context reads: the ownership marker it stamps and checks. */
export interface ContextOptions {
  /** The configured owner name (`sandport.owner`). */
  readonly owner: string;
}

/** What an {@link AdapterContext} is built from. */
export interface AdapterContextSettings<Options extends ContextOptions, Sdk> {
  /** Provider name, in handles and errors. */
  readonly provider: string;
  /** The adapter's resolved options. */
  readonly options: Options;
  /** Its SDK loader (`createSdkLoader`). */
  readonly sdk: SdkLoader<Sdk>;
  /** Its error mapper (`createErrorMapper`), applied at each call's site. */
  readonly mapError: ErrorMapper;
  /** The sandbox id a handle names, checked before any request (`checkHandle` and the id format); throws to refuse. */
  readonly sandboxIdOf: (handle: unknown, operation: string) => string;
  /** The runtime's `onBackgroundError` option (`undefined` as good as absent). */
  readonly onBackgroundError?: ((error: SandportError) => void) | undefined;
}

/**
 * The per-runtime state and call frame every remote adapter shares: options,
 * SDK loader, background cleanup, condemned launch keys, known sandboxes, a
 * connect cache shared by concurrent callers, `run`/`onHandle`, and the
 * ownership checks. An adapter's context extends it with its client and
 * connection fields and supplies its two (or three) vendor primitives:
 * {@link describe} and {@link labelsOf}, and {@link connect} when its SDK
 * hands out a per-sandbox instance. Not a base class for the runtime: the
 * runtime keeps one context and its methods stay its capabilities.
 *
 * @typeParam Info what the provider reports about one sandbox
 * @typeParam Instance a connected per-sandbox SDK object (`never` when there is none)
 */
export abstract class AdapterContext<Options extends ContextOptions, Sdk, Info, Instance = never> {
  /** Provider name, in handles and errors. */
  readonly provider: string;
  /** The adapter's resolved options. */
  readonly options: Options;
  /** The SDK, loaded on first use. */
  readonly sdk: SdkLoader<Sdk>;
  /** The adapter's error mapper. */
  readonly mapError: ErrorMapper;
  /** Cleanup of abandoned launches; the runtime's `settle()` waits for it. */
  readonly background: BackgroundTasks;
  /** Launch keys whose sandboxes are being destroyed in the background; `findOwned` hides them. */
  readonly condemned = new Set<string>();
  /** Which sandboxes are ours, and which no command has touched since this runtime launched them. */
  readonly known = new KnownSandboxes();
  readonly #sandboxIdOf: (handle: unknown, operation: string) => string;
  /** Connected per-sandbox SDK objects, the most recently used kept (a forgotten one is connected again). */
  readonly #instances = new RecentMap<string, Promise<Instance>>();

  /** Keeps the settings; no I/O. */
  constructor(settings: AdapterContextSettings<Options, Sdk>) {
    this.provider = settings.provider;
    this.options = settings.options;
    this.sdk = settings.sdk;
    this.mapError = settings.mapError;
    this.#sandboxIdOf = settings.sandboxIdOf;
    this.background = new BackgroundTasks(
      (error) => settings.mapError(error, { operation: "background cleanup" }),
      settings.onBackgroundError,
    );
  }

  /**
   * What the provider reports about one sandbox, or `undefined` when it does
   * not exist: one lookup, errors other than not-found thrown as they come
   * (the frame maps them). Never connects or resumes.
   */
  abstract describe(sandboxId: string, operation: string, budget: CallBudget): Promise<Info | undefined>;

  /** The labels (decoded metadata or tags) stored with a sandbox, ownership marker included. */
  abstract labelsOf(info: Info): Readonly<Record<string, string>> | undefined;

  /**
   * Opens a per-sandbox SDK instance of an owned sandbox (a missing one is
   * `NOT_FOUND`). Adapters whose SDK has none leave this default, which refuses.
   */
  connect(sandboxId: string, operation: string, _budget: CallBudget): Promise<Instance> {
    return Promise.reject(sandboxNotFound(this.provider, sandboxId, operation));
  }

  /** Runs one port method (`runOperation`): per-call options checked, deadline applied, errors mapped at `site`. */
  run<T>(
    op: OpOptions | undefined,
    site: ErrorSite,
    defaultTimeoutMs: number,
    task: (call: OperationCall) => Promise<T>,
  ): Promise<T> {
    const context = {
      provider: this.provider,
      operation: site.operation,
      defaultTimeoutMs,
      mapError: (error: unknown) => this.mapError(error, site),
    };
    return runOperation(op, context, task);
  }

  /** {@link run} for the sandbox `handle` names: its id is checked before anything else (`INVALID_REQUEST`), then named in errors. */
  async onHandle<T>(
    handle: unknown,
    op: OpOptions | undefined,
    site: string | Omit<ErrorSite, "sandboxId">,
    defaultTimeoutMs: number,
    task: (sandboxId: string, call: OperationCall) => Promise<T>,
  ): Promise<T> {
    const where = typeof site === "string" ? { operation: site } : site;
    const sandboxId = this.#sandboxIdOf(handle, where.operation);
    return this.run(op, { ...where, sandboxId }, defaultTimeoutMs, (call) => task(sandboxId, call));
  }

  /** {@link onHandle} on the connected instance of an owned sandbox (see {@link instance}). */
  onInstance<T>(
    handle: unknown,
    op: OpOptions | undefined,
    site: string | Omit<ErrorSite, "sandboxId">,
    defaultTimeoutMs: number,
    task: (instance: Instance, call: OperationCall, sandboxId: string) => Promise<T>,
  ): Promise<T> {
    const operation = typeof site === "string" ? site : site.operation;
    return this.onHandle(handle, op, site, defaultTimeoutMs, async (sandboxId, call) =>
      task(await this.instance(sandboxId, operation, call), call, sandboxId),
    );
  }

  /**
   * A sandbox's info when it is ours: `undefined` when it does not exist,
   * `FOREIGN_SANDBOX` when it exists without our ownership marker. Remembers it as ours.
   */
  async ownedInfo(sandboxId: string, operation: string, budget: CallBudget): Promise<Info | undefined> {
    let info: Info | undefined;
    try {
      info = await this.describe(sandboxId, operation, budget);
    } catch (error) {
      throw this.mapError(error, { operation, sandboxId });
    }
    if (info === undefined) return undefined;
    if (!isOwnedBy(this.labelsOf(info), this.options.owner)) throw foreignSandbox(this.provider, sandboxId, operation);
    this.known.markOwned(sandboxId);
    return info;
  }

  /** Rejects `FOREIGN_SANDBOX` or `NOT_FOUND` unless `sandboxId` is ours; one lookup unless already known. */
  async assertOwned(sandboxId: string, operation: string, budget: CallBudget): Promise<void> {
    if (this.known.isOwned(sandboxId)) return;
    if (!(await this.ownedInfo(sandboxId, operation, budget))) {
      throw sandboxNotFound(this.provider, sandboxId, operation);
    }
  }

  /**
   * The connected instance of an owned sandbox: the one kept by {@link remember},
   * else an ownership check and a {@link connect}, shared by concurrent callers
   * (kept before the first await, with no one caller's signal, so none cancels
   * it for the others; each caller's deadline still bounds its own wait).
   * A failed connect is dropped, so the next call tries again.
   */
  async instance(sandboxId: string, operation: string, budget: CallBudget): Promise<Instance> {
    const cached = this.#instances.get(sandboxId);
    if (cached) return cached;
    const shared = { remainingMs: () => budget.remainingMs() };
    const connecting = (async () => {
      await this.assertOwned(sandboxId, operation, shared);
      return this.connect(sandboxId, operation, shared);
    })();
    this.#instances.set(sandboxId, connecting);
    try {
      return await connecting;
    } catch (error) {
      if (this.#instances.get(sandboxId) === connecting) this.#instances.delete(sandboxId);
      throw error;
    }
  }

  /** Records a sandbox as ours, keeping its connected instance (if any) for later calls. */
  remember(sandboxId: string, instance?: Instance): void {
    this.known.markOwned(sandboxId);
    if (instance !== undefined) this.#instances.set(sandboxId, Promise.resolve(instance));
  }

  /**
   * Drops everything known about a sandbox (destroyed), or only its instance and
   * pristine mark (`keepOwnership`: stopped); a connected instance dropped is {@link release}d.
   */
  forget(sandboxId: string, options: { readonly keepOwnership?: boolean } = {}): void {
    const kept = this.#instances.get(sandboxId);
    this.#instances.delete(sandboxId);
    kept?.then(
      (instance) => this.release(instance),
      () => {},
    );
    this.known.forget(sandboxId, options);
  }

  /**
   * Frees what a connected instance holds once {@link forget} dropped it (an SDK
   * object's connection, say). The default does nothing.
   */
  protected release(_instance: Instance): void {}

  /**
   * After a launch failed with its create request sent: `reclaimAbandonedLaunch`
   * with this context's condemned keys, background tasks and the mapper's
   * `outcomeUnknown`; the adapter gives the launch's facts and its primitives
   * (a delete of one sandbox, `findIdsByLaunchKey`, `orphanCleanupMs`).
   * `launchWithReclaim` calls it for every launch built on that recipe.
   */
  reclaimLaunch<Created>(launch: AbandonedCreate<Created>, primitives: ReclaimPrimitives): void {
    reclaimAbandonedLaunch({
      ...launch,
      ...primitives,
      outcomeUnknown: this.mapError.outcomeUnknown,
      condemned: this.condemned,
      background: this.background,
    });
  }

  /** Whether a listed sandbox belongs to a launch being destroyed in the background. */
  isCondemned(labels: Labels | Readonly<Record<string, string>> | undefined): boolean {
    const key = labels?.[LAUNCH_KEY_LABEL];
    return key !== undefined && this.condemned.has(key);
  }
}
