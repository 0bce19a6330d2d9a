import type { OpOptions, SandportError } from "@sandport/core";
import { AdapterContext, type CallBudget, type ErrorSite, type OperationCall } from "@sandport/core/adapter";
import { isNotFound, mapModalError } from "./errors.js";
import { PROVIDER, sandboxIdOf, validSandboxId } from "./handle.js";
import { inScope } from "./internal/call-scope.js";
import { createPinnedClient } from "./internal/pinned-client.js";
import { createModalSdkLoader, type ModalSdkSource } from "./internal/sdk.js";
import type { ModalApp, ModalClient, ModalImage, ModalSandbox, ModalSdkModule } from "./internal/sdk-types.js";
import type { ResolvedOptions } from "./options.js";

/** A running sandbox and its tags, as a lookup found it. */
export interface ModalSandboxInfo {
  readonly sandbox: ModalSandbox;
  readonly tags: Readonly<Record<string, string>>;
}

/**
 * Per-runtime state shared by the operations: the kit's `AdapterContext`
 * (call frame, ownership, known sandboxes, the sandbox objects kept for
 * commands, background cleanup) with Modal's vendor primitives: a poll and
 * the tags (`describe`), the tags as labels (`labelsOf`), `sandboxes.fromId`
 * (`connect`), and the detach of a dropped sandbox object (`release`). It
 * adds the one pinned client, the App, the built images and the ports each
 * sandbox launched here declared. Every port call's control-plane calls carry
 * its deadline and signal (`inScope`). Not exported from the package.
 */
export class ModalContext extends AdapterContext<ResolvedOptions, ModalSdkModule, ModalSandboxInfo, ModalSandbox> {
  /** The client, the App and the built images, each made once (see {@link #once}). */
  readonly #kept = new Map<string, Promise<unknown>>();
  /** The ports each sandbox launched here declared (`LaunchSpec.ports`): Modal opens tunnels only at create. */
  readonly #ports = new Map<string, readonly number[]>();

  constructor(options: ResolvedOptions, sdk?: ModalSdkSource, onBackgroundError?: (error: SandportError) => void) {
    super({
      provider: PROVIDER,
      options,
      sdk: createModalSdkLoader(sdk),
      mapError: mapModalError,
      sandboxIdOf,
      onBackgroundError,
    });
  }

  /** The kit's frame, with the call's deadline and signal on every control-plane call the SDK makes for it. */
  override run<T>(
    op: OpOptions | undefined,
    site: ErrorSite,
    defaultTimeoutMs: number,
    task: (call: OperationCall) => Promise<T>,
  ): Promise<T> {
    return super.run(op, site, defaultTimeoutMs, (call) => inScope(call, () => task(call)));
  }

  /**
   * A running sandbox and its tags; `undefined` when it does not exist or has
   * finished. Two requests: a poll (is it running?) and its tags.
   */
  async describe(sandboxId: string, _operation: string, budget: CallBudget): Promise<ModalSandboxInfo | undefined> {
    validSandboxId(sandboxId);
    return inScope(budget, async () => {
      const sandbox = await (await this.client()).sandboxes.fromId(sandboxId);
      try {
        if (!(await isRunning(sandbox))) return this.#gone(sandboxId);
        return { sandbox, tags: await sandbox.getTags() };
      } catch (error) {
        if (isNotFound(error)) return this.#gone(sandboxId);
        throw error;
      }
    });
  }

  /** Modal tags, which hold the ownership marker, the launch key and the caller's labels as they are. */
  labelsOf(info: ModalSandboxInfo): Readonly<Record<string, string>> {
    return info.tags;
  }

  /** The sandbox object of an owned sandbox (`fromId` sends nothing); its first command opens its connection. */
  override async connect(sandboxId: string): Promise<ModalSandbox> {
    return (await this.client()).sandboxes.fromId(sandboxId);
  }

  /** A dropped sandbox object releases its connection (the sandbox keeps running). */
  protected override release(sandbox: ModalSandbox): void {
    sandbox.detach();
  }

  /** Also drops the ports a sandbox launched here declared. */
  override forget(sandboxId: string, options: { readonly keepOwnership?: boolean } = {}): void {
    super.forget(sandboxId, options);
    if (!options.keepOwnership) this.#ports.delete(sandboxId);
  }

  /** Records a sandbox just launched here with `ports` declared: ours, pristine, its object kept. */
  launched(sandbox: ModalSandbox, ports: readonly number[]): void {
    this.remember(sandbox.sandboxId, sandbox);
    this.known.markPristine(sandbox.sandboxId);
    this.#ports.set(sandbox.sandboxId, ports);
  }

  /** The ports a sandbox launched here declared; `undefined` for one this runtime did not launch. */
  declaredPorts(sandboxId: string): readonly number[] | undefined {
    return this.#ports.get(sandboxId);
  }

  /**
   * The one client of this runtime, built on first use from the options alone
   * (see `createPinnedClient`).
   */
  client(): Promise<ModalClient> {
    const { serverUrl, tokenId, tokenSecret, environment, maxThrottleWaitMs } = this.options;
    return this.#once("client", async () =>
      createPinnedClient(await this.sdk(), {
        ...{ serverUrl, tokenId, tokenSecret, environment },
        maxThrottleWaitSecs: maxThrottleWaitMs / 1000,
      }),
    );
  }

  /** The App sandboxes are created in (created if missing), looked up once. */
  app(): Promise<ModalApp> {
    const { appName, environment } = this.options;
    return this.#once("app", async () =>
      (await this.client()).apps.fromName(appName, { environment, createIfMissing: true }),
    );
  }

  /** An image by registry reference or id (`im-…`), built (resolved to an id) once per reference. */
  image(reference: string, app: ModalApp): Promise<ModalImage> {
    return this.#once(`image ${reference}`, async () => {
      const { images } = await this.client();
      const unbuilt = /^im-[A-Za-z0-9]+$/.test(reference)
        ? await images.fromId(reference)
        : images.fromRegistry(reference);
      return unbuilt.build(app);
    });
  }

  /** What `make` gives for `key`, made once and shared; a failure is dropped, so the next call tries again. */
  #once<T>(key: string, make: () => Promise<T>): Promise<T> {
    const kept = this.#kept.get(key) as Promise<T> | undefined;
    if (kept) return kept;
    const made = make();
    this.#kept.set(key, made);
    made.catch(() => this.#kept.get(key) === made && this.#kept.delete(key));
    return made;
  }

  #gone(sandboxId: string): undefined {
    this.forget(sandboxId);
    return undefined;
  }
}

/** Whether a sandbox still runs: one poll (`null` while running); not-found is an error for the caller. */
export async function isRunning(sandbox: ModalSandbox): Promise<boolean> {
  return (await sandbox.poll()) === null;
}
