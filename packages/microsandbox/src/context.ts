import type { SandportError } from "@sandport/core";
import {
  AdapterContext,
  absentAs,
  type CallBudget,
  metadataCodec,
  RecentMap,
  sandboxNotFound,
  whenAbsent,
} from "@sandport/core/adapter";
import { isSandboxNotFound, mapMicrosandboxError } from "./errors.js";
import { PROVIDER, sandboxNameOf, storedEnv, storedLabels, validSandboxName } from "./handle.js";
import { backendGate } from "./internal/default-backend.js";
import { createMicrosandboxSdkLoader, type MicrosandboxSdkSource } from "./internal/sdk.js";
import type { MicrosandboxSdk, MsbSandbox, MsbSandboxHandle, MsbSandboxStatics } from "./internal/sdk-types.js";
import type { ResolvedOptions } from "./options.js";

/**
 * Per-runtime state shared by the operations: the kit's `AdapterContext`
 * (call frame, ownership, known sandboxes, attach cache, background cleanup)
 * with microsandbox's primitives: one `GET by-name` through the backend gate
 * (`describe`), the labels in the record's spec (`labelsOf`), the record's
 * `connect` (`connect`), and the environment each sandbox was launched with.
 * Not exported from the package.
 */
export class MicrosandboxContext extends AdapterContext<
  ResolvedOptions,
  MicrosandboxSdk,
  MsbSandboxHandle,
  MsbSandbox
> {
  /** The launch environment of our sandboxes, by name: the SDK repeats it only from the `Sandbox` that created it. */
  readonly #launchEnv = new Map<string, Readonly<Record<string, string>>>();
  /** Records read by an ownership check, kept for the attach that follows it (one `GET`, not two). */
  readonly #records = new RecentMap<string, MsbSandboxHandle>();

  constructor(
    options: ResolvedOptions,
    sdk?: MicrosandboxSdkSource,
    onBackgroundError?: (error: SandportError) => void,
  ) {
    super({
      provider: PROVIDER,
      options,
      sdk: createMicrosandboxSdkLoader({ backend: options.backend.kind, source: sdk }),
      mapError: mapMicrosandboxError,
      sandboxIdOf: sandboxNameOf,
      onBackgroundError,
    });
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

  /** The sandbox's record (`GET /v1/sandboxes/by-name/:name`), `undefined` when it does not exist. */
  async describe(name: string, _operation: string, budget: CallBudget): Promise<MsbSandboxHandle | undefined> {
    validSandboxName(name);
    return this.entry((statics) => statics.get(name), budget.signal).catch(whenAbsent(isSandboxNotFound, undefined));
  }

  /** The labels in the record's spec (ownership marker and launch key included). */
  labelsOf(record: MsbSandboxHandle): Readonly<Record<string, string>> | undefined {
    return metadataCodec.decode(storedLabels(record.configJson));
  }

  /** The kit's ownership check, keeping the record's launch environment and the record for {@link connect}. */
  override async ownedInfo(name: string, operation: string, budget: CallBudget): Promise<MsbSandboxHandle | undefined> {
    const record = await super.ownedInfo(name, operation, budget);
    if (record) {
      this.#launchEnv.set(name, storedEnv(record.configJson));
      this.#records.set(name, record);
    }
    return record;
  }

  /** Attaches to a running sandbox of ours through its record (the one just checked, else one `GET`). */
  override async connect(name: string, operation: string, budget: CallBudget): Promise<MsbSandbox> {
    const checked = this.#records.get(name);
    this.#records.delete(name);
    const attach = async () => {
      const record = checked ?? (await this.describe(name, operation, budget));
      if (!record) throw sandboxNotFound(PROVIDER, name, operation);
      return record.connect();
    };
    const mapOther = (error: unknown) => this.mapError(error, { operation, sandboxId: name });
    return attach().catch(absentAs(PROVIDER, isSandboxNotFound, name, operation, mapOther));
  }

  /** Keeps an attached sandbox of ours and, from its launch, the environment it was created with. */
  override remember(name: string, sandbox?: MsbSandbox, launchEnv?: Readonly<Record<string, string>>): void {
    super.remember(name, sandbox);
    if (launchEnv) this.#launchEnv.set(name, launchEnv);
  }

  /** Drops what is known of a sandbox (destroyed), or only its attachment (`keepOwnership`: stopped). */
  override forget(name: string, options: { readonly keepOwnership?: boolean } = {}): void {
    super.forget(name, options);
    this.#records.delete(name);
    if (!options.keepOwnership) this.#launchEnv.delete(name);
  }

  /** The environment `name` was launched with, sent under every command's own. */
  launchEnv(name: string): Readonly<Record<string, string>> {
    return this.#launchEnv.get(name) ?? {};
  }
}
