import type { SandportError } from "@sandport/core";
import { AdapterContext, absentAs, type CallBudget, collectPages } from "@sandport/core/adapter";
import { isNotFound, mapVercelError } from "./errors.js";
import { ourSandboxName, PROVIDER, sandboxNameOf } from "./handle.js";
import { createVercelSdkLoader, type VercelSdkSource } from "./internal/sdk.js";
import type { VercelConnection, VercelSandbox, VercelSandboxRow, VercelSdkModule } from "./internal/sdk-types.js";
import type { ResolvedOptions } from "./options.js";
import { NameOwnership } from "./ownership.js";
import { guardedFetch } from "./transport.js";

/** What one walk of Vercel's list API filters by: a name prefix, and at most one tag. */
export interface ListFilter {
  readonly namePrefix: string;
  readonly tags?: Record<string, string>;
}

/**
 * Per-runtime state shared by the operations: the kit's `AdapterContext`
 * (call frame, ownership, known sandboxes, connect cache, background cleanup)
 * with Vercel's vendor primitives: the list row of one name (`describe`;
 * never `Sandbox.get`, which can resume and bill a stopped sandbox), the
 * name-and-tag ownership (`labelsOf`), `Sandbox.get` (`connect`), and the
 * credentials and guarded fetch every SDK call carries. Not exported from the package.
 */
export class VercelContext extends AdapterContext<ResolvedOptions, VercelSdkModule, VercelSandboxRow, VercelSandbox> {
  /** The ownership boundary: the name prefix and the `sandport.owner` tag. */
  readonly ownership: NameOwnership;
  readonly #fetch: typeof globalThis.fetch;

  constructor(options: ResolvedOptions, sdk?: VercelSdkSource, onBackgroundError?: (error: SandportError) => void) {
    super({
      provider: PROVIDER,
      options,
      sdk: createVercelSdkLoader(sdk),
      mapError: mapVercelError,
      sandboxIdOf: (handle, operation) =>
        ourSandboxName(sandboxNameOf(handle, operation), options.namePrefix, operation),
      onBackgroundError,
    });
    this.ownership = new NameOwnership(options.namePrefix, options.owner);
    this.#fetch = guardedFetch(options.fetch ?? ((input, init) => globalThis.fetch(input, init)));
  }

  /** The list row named exactly `name`, whoever owns it; `undefined` when there is none. */
  async describe(name: string, operation: string, budget: CallBudget): Promise<VercelSandboxRow | undefined> {
    const rows = await this.list({ namePrefix: name }, operation, budget);
    return rows.find((row) => row.name === name);
  }

  /** The labels a sandbox's name and tags say it has (launch key and owner included); `undefined` outside the prefix. */
  labelsOf(row: VercelSandboxRow): Readonly<Record<string, string>> | undefined {
    return this.ownership.decode(row);
  }

  /** `Sandbox.get` of an owned sandbox, which never resumes a stopped one; a missing one is `NOT_FOUND`. */
  override async connect(name: string, operation: string, budget: CallBudget): Promise<VercelSandbox> {
    const sdk = await this.sdk();
    const mapOther = (error: unknown) => this.mapError(error, { operation, sandboxId: name });
    return sdk.Sandbox.get({ ...this.connection(budget), name }).catch(
      absentAs(PROVIDER, isNotFound, name, operation, mapOther),
    );
  }

  /**
   * Every row the list API gives for `filter`, across every page. The API
   * refuses `namePrefix` unless the list is sorted by name, and takes pages
   * of 1 to 50 (`listPageSize`).
   */
  async list(filter: ListFilter, operation: string, budget: CallBudget): Promise<VercelSandboxRow[]> {
    const sdk = await this.sdk();
    let cursor: string | undefined;
    let done = false;
    const connection = this.connection(budget);
    return collectPages(
      async () => {
        if (done) return undefined;
        const page = await sdk.Sandbox.list({
          ...connection,
          ...filter,
          sortBy: "name",
          limit: this.options.listPageSize,
          ...(cursor === undefined ? {} : { cursor }),
        });
        cursor = page.pagination.next ?? undefined;
        done = cursor === undefined;
        return page.sandboxes;
      },
      { signal: connection.signal, mapError: (error) => this.mapError(error, { operation }) },
    );
  }

  /**
   * What every static SDK call carries: all three credentials, so no ambient
   * lookup can fire, the guarded fetch, and a signal that ends the call with
   * its budget (the SDK has no per-request timeout of its own).
   */
  connection(budget: CallBudget): VercelConnection & { readonly signal: AbortSignal } {
    const { token, teamId, projectId } = this.options;
    const signal = budget.signal ?? AbortSignal.timeout(Math.max(1, budget.remainingMs()));
    return { token, teamId, projectId, fetch: this.#fetch, signal };
  }
}
