import type { SandportError } from "@sandport/core";
import {
  AdapterContext,
  absentAs,
  type CallBudget,
  DeletePace,
  RecentMap,
  sandboxNotFound,
  whenAbsent,
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
import type { ResolvedOptions } from "./options.js";

/** States in which a sandbox is on its way to `started`: calls wait for it. */
const BOOTING = new Set([
  "creating",
  "starting",
  "pending_build",
  "building_snapshot",
  "pulling_snapshot",
  "restoring",
]);

/**
 * Before any delete was seen through, how long one is expected to take to
 * show as not found: Daytona's `DELETE` answers with the sandbox still
 * `destroying` (the SDK's `Sandbox.delete` waits for `destroyed` only when asked).
 */
const FIRST_DELETE_ESTIMATE_MS = 250;

/** A deadline of `ms` milliseconds as whole seconds for the SDK's `timeout` arguments (at least 1: 0 means none). */
export function seconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

/**
 * Per-runtime state shared by the operations: the kit's `AdapterContext`
 * (call frame, ownership, known sandboxes, instance cache, background
 * cleanup) with Daytona's vendor primitives: one `GET /api/sandbox/{id}`
 * through the low-level API (`describe`), the sandbox's labels (`labelsOf`),
 * the SDK's `get` (`connect`); plus the one SDK client and each sandbox's
 * home directory. Not exported from the package.
 */
export class DaytonaContext extends AdapterContext<
  ResolvedOptions,
  DaytonaSdkModule,
  DaytonaSandboxRecord,
  DaytonaSandbox
> {
  #client: DaytonaClient | undefined;
  readonly #homes = new RecentMap<string, Promise<string>>();
  /** How long this runtime's deletes take to show: when a destroy first looks. */
  readonly deletePace = new DeletePace({ initialMs: FIRST_DELETE_ESTIMATE_MS });

  constructor(options: ResolvedOptions, sdk?: DaytonaSdkSource, onBackgroundError?: (error: SandportError) => void) {
    super({
      provider: PROVIDER,
      options,
      sdk: createDaytonaSdkLoader(sdk),
      mapError: mapDaytonaError,
      sandboxIdOf,
      onBackgroundError,
    });
  }

  /** A sandbox as the API answers it; `undefined` when it does not exist (or is destroyed). Cancellable. */
  async describe(sandboxId: string, _operation: string, budget: CallBudget): Promise<DaytonaSandboxRecord | undefined> {
    const api = await this.api();
    const request = api.getSandbox(validSandboxId(sandboxId), undefined, undefined, this.requestOptions(budget));
    return request.then(
      ({ data }) => (data.state === "destroyed" ? undefined : data),
      whenAbsent(isNotFound, undefined),
    );
  }

  /** The sandbox's Daytona labels (ownership marker and launch key included). */
  labelsOf(record: DaytonaSandboxRecord): Readonly<Record<string, string>> | undefined {
    return record.labels;
  }

  /**
   * The SDK instance of an owned sandbox (the kit checked ownership first):
   * the SDK's `get`; a sandbox still booting is waited for, one being
   * destroyed is `NOT_FOUND`.
   */
  override async connect(sandboxId: string, operation: string, budget: CallBudget): Promise<DaytonaSandbox> {
    const client = await this.client();
    const mapOther = (error: unknown) => this.mapError(error, { operation, sandboxId });
    const got = client.get(validSandboxId(sandboxId));
    const sandbox = await got.catch(absentAs(PROVIDER, isNotFound, sandboxId, operation, mapOther));
    if (sandbox.state === "destroyed" || sandbox.state === "destroying") {
      throw sandboxNotFound(PROVIDER, sandboxId, operation);
    }
    if (sandbox.state !== undefined && BOOTING.has(sandbox.state)) {
      await sandbox.waitUntilStarted(seconds(budget.remainingMs()));
    }
    return sandbox;
  }

  /**
   * The one Daytona client of this runtime, built on first use (once the SDK
   * loaded; a failed load is tried again next time) with every connection
   * field explicit, so the SDK reads no `DAYTONA_*` variable and no `.env`
   * file for them.
   */
  async client(): Promise<DaytonaClient> {
    const sdk = await this.sdk();
    const { credentials, apiUrl, target, timeouts } = this.options;
    this.#client ??= new sdk.Daytona({
      ...credentials,
      apiUrl,
      target,
      useDeprecatedPolling: true,
      otelEnabled: false,
      // No single request may outlive the longest deadline of any port call.
      requestTimeoutMs: Math.max(timeouts.launchMs, timeouts.lookupMs, timeouts.fileMs, timeouts.lifecycleMs),
    });
    return this.#client;
  }

  /** The client's low-level sandbox API (cancellable requests, the API's own sandbox records). */
  async api(): Promise<DaytonaSandboxApi> {
    return lowLevelApi(await this.client());
  }

  /** Per-request options of the low-level API for one call: its deadline and signal. */
  requestOptions(budget: CallBudget): LowLevelRequestOptions {
    return { timeout: Math.max(1, budget.remainingMs()), ...(budget.signal ? { signal: budget.signal } : {}) };
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

  /** The kit's `forget`, and the home directory with it. */
  override forget(sandboxId: string, options: { readonly keepOwnership?: boolean } = {}): void {
    super.forget(sandboxId, options);
    this.#homes.delete(sandboxId);
  }
}
