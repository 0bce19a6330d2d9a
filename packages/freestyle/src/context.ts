import type { OpOptions, SandportError } from "@sandport/core";
import { AdapterContext, type CallBudget, type ErrorSite, type OperationCall } from "@sandport/core/adapter";
import { isNotFound, mapFreestyleError } from "./errors.js";
import { PROVIDER, validVmId, vmIdOf } from "./handle.js";
import { createFreestyleSdkLoader, type FreestyleSdkSource } from "./internal/sdk.js";
import type { FreestyleClient, FreestyleSdkModule, FreestyleVm, FreestyleVmData } from "./internal/sdk-types.js";
import type { ResolvedOptions } from "./options.js";
import { labelsOf } from "./ownership.js";
import { callFetch } from "./transport.js";

/**
 * Per-runtime state shared by the operations: the kit's `AdapterContext`
 * (call frame, ownership, known VMs, background cleanup) with Freestyle's
 * vendor primitives: one `GET /v5/vms/{id}` (`describe`) and the ownership
 * codec (`labelsOf`: the metadata of a VM whose slug is under our prefix).
 * The SDK hands out no connection worth keeping: each call builds a client
 * bound to its own deadline and signal (`client`). Not exported from the package.
 */
export class FreestyleContext extends AdapterContext<ResolvedOptions, FreestyleSdkModule, FreestyleVmData> {
  constructor(options: ResolvedOptions, sdk?: FreestyleSdkSource, onBackgroundError?: (error: SandportError) => void) {
    super({
      provider: PROVIDER,
      options,
      sdk: createFreestyleSdkLoader(sdk),
      mapError: mapFreestyleError,
      sandboxIdOf: vmIdOf,
      onBackgroundError,
    });
  }

  /**
   * A VM's record, or `undefined` when no VM has this id. The API also finds
   * VMs by slug there: a record found by slug is not this id's.
   */
  async describe(vmId: string, _operation: string, budget: CallBudget): Promise<FreestyleVmData | undefined> {
    validVmId(vmId);
    try {
      const data = await (await this.client(budget)).vms.get(vmId);
      return data.id === vmId ? data : undefined;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  /** The VM's metadata when its slug is under our name prefix (see `ownership.ts`). */
  labelsOf(data: FreestyleVmData): Readonly<Record<string, string>> | undefined {
    return labelsOf(data, this.options.namePrefix);
  }

  /** {@link onHandle} for a VM proven ours first (`FOREIGN_SANDBOX`, `NOT_FOUND`; one lookup unless known). */
  onOwned<T>(
    handle: unknown,
    op: OpOptions | undefined,
    site: string | Omit<ErrorSite, "sandboxId">,
    defaultTimeoutMs: number,
    task: (vmId: string, call: OperationCall) => Promise<T>,
  ): Promise<T> {
    const operation = typeof site === "string" ? site : site.operation;
    return this.onHandle(handle, op, site, defaultTimeoutMs, async (vmId, call) => {
      await this.assertOwned(vmId, operation, call);
      return task(vmId, call);
    });
  }

  /**
   * An SDK client whose every request carries `budget`'s signal and deadline
   * (see `callFetch`), and every credential and endpoint from the options.
   */
  async client(budget: CallBudget): Promise<FreestyleClient> {
    const sdk = await this.sdk();
    const { apiKey, baseUrl } = this.options;
    return new sdk.Freestyle({ apiKey, baseUrl, fetch: callFetch(this.options.fetch, budget) });
  }

  /** A handle on one VM for a client bound to `budget` (no request). */
  async vm(vmId: string, budget: CallBudget): Promise<FreestyleVm> {
    return (await this.client(budget)).vms.ref(vmId);
  }
}
