import { type OpOptions, SandportError } from "@sandport/core";
import { AdapterContext, type CallBudget, type ErrorSite, type OperationCall, RecentMap } from "@sandport/core/adapter";
import { isNotFound, mapAgent37Error } from "./errors.js";
import { instanceIdOf, PROVIDER, validInstanceId } from "./handle.js";
import { Agent37Client, clientLoader } from "./internal/sdk.js";
import type { Agent37Instance } from "./internal/sdk-types.js";
import type { ResolvedOptions } from "./options.js";

/**
 * Per-runtime state shared by the operations: the kit's `AdapterContext`
 * (call frame, ownership, known instances, background cleanup) with
 * Agent37's primitives: one `GET /v1/instances/{id}` (`describe`), the
 * instance's `metadata` as its labels, and the instance URL of each
 * instance as Agent37 reported it (`instanceUrl`). Not exported from the package.
 */
export class Agent37Context extends AdapterContext<ResolvedOptions, Agent37Client, Agent37Instance> {
  /** The HTTP client over the runtime's `fetch`. */
  readonly client: Agent37Client;
  /** Instance URLs read off instance objects, by id (never built from the id). */
  readonly #urls = new RecentMap<string, string | null>();

  constructor(options: ResolvedOptions, onBackgroundError?: (error: SandportError) => void) {
    const client = new Agent37Client(options);
    super({
      provider: PROVIDER,
      options,
      sdk: clientLoader(client),
      mapError: mapAgent37Error,
      sandboxIdOf: instanceIdOf,
      onBackgroundError,
    });
    this.client = client;
  }

  /** An instance's object, or `undefined` when Agent37 has no instance with this id. */
  async describe(instanceId: string, _operation: string, budget: CallBudget): Promise<Agent37Instance | undefined> {
    validInstanceId(instanceId);
    try {
      return this.note(await this.client.getInstance(instanceId, budget));
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  /** The instance's metadata: Sandport's labels, owner and launch key included. */
  labelsOf(instance: Agent37Instance): Readonly<Record<string, string>> | undefined {
    return instance.metadata ?? undefined;
  }

  /** Keeps the instance URL an instance object reports; returns the object. */
  note(instance: Agent37Instance): Agent37Instance {
    this.#urls.set(instance.id, typeof instance.url === "string" && instance.url !== "" ? instance.url : null);
    return instance;
  }

  /**
   * The instance URL (for files), as the instance object reports it: from
   * the last object seen, else one `GET`. A template without ports has none:
   * `UNSUPPORTED`, since the instance plane cannot be reached.
   */
  async instanceUrl(instanceId: string, operation: string, budget: CallBudget): Promise<string> {
    if (!this.#urls.has(instanceId)) {
      this.note(await this.client.getInstance(instanceId, budget));
    }
    const url = this.#urls.get(instanceId);
    if (url) return url.replace(/\/+$/, "");
    throw new SandportError({
      code: "UNSUPPORTED",
      provider: PROVIDER,
      retryable: false,
      message: `agent37 ${operation}: instance ${instanceId} has no instance URL (its template declares no port), so its files cannot be reached`,
      details: { sandboxId: instanceId, operation },
    });
  }

  /** Forgets an instance's URL (it was deleted). */
  dropUrl(instanceId: string): void {
    this.#urls.delete(instanceId);
  }

  /** {@link onHandle} for an instance proven ours first (`FOREIGN_SANDBOX`, `NOT_FOUND`; one lookup unless known). */
  onOwned<T>(
    handle: unknown,
    op: OpOptions | undefined,
    site: string | Omit<ErrorSite, "sandboxId">,
    defaultTimeoutMs: number,
    task: (instanceId: string, call: OperationCall) => Promise<T>,
  ): Promise<T> {
    const operation = typeof site === "string" ? site : site.operation;
    return this.onHandle(handle, op, site, defaultTimeoutMs, async (instanceId, call) => {
      await this.assertOwned(instanceId, operation, call);
      return task(instanceId, call);
    });
  }
}
