import type { OpOptions, SandportError } from "@sandport/core";
import {
  BackgroundTasks,
  type ErrorSite,
  foreignSandbox,
  KnownSandboxes,
  type OperationCall,
  runOperation,
  type SdkLoader,
  sandboxNotFound,
} from "@sandport/core/adapter";
import { isNotFound, mapFreestyleError } from "./errors.js";
import { PROVIDER, validVmId, vmIdOf } from "./handle.js";
import { createFreestyleSdkLoader, type FreestyleSdkSource } from "./internal/sdk.js";
import type { FreestyleClient, FreestyleSdkModule, FreestyleVm, FreestyleVmData } from "./internal/sdk-types.js";
import type { ResolvedOptions } from "./options.js";
import { isOurs } from "./ownership.js";
import { type CallTiming, callFetch } from "./transport.js";

/**
 * Per-runtime state shared by the operations: the SDK loader, which VM ids
 * are known to be ours, which VMs no command has touched yet, and background
 * work. Not exported from the package.
 */
export class FreestyleContext {
  readonly options: ResolvedOptions;
  /** The `freestyle` SDK, loaded on first use. */
  readonly sdk: SdkLoader<FreestyleSdkModule>;
  /** Cleanup of abandoned launches and commands; `FreestyleRuntime.settle()` waits for it. */
  readonly background: BackgroundTasks;
  /** Launch keys whose VMs are being destroyed in the background; hidden from `findByLabels`. */
  readonly condemned = new Set<string>();
  /** Which VMs are ours, and which no command has touched since this runtime launched them. */
  readonly known = new KnownSandboxes();

  constructor(options: ResolvedOptions, sdk?: FreestyleSdkSource, onBackgroundError?: (error: SandportError) => void) {
    this.options = options;
    this.sdk = createFreestyleSdkLoader(sdk);
    this.background = new BackgroundTasks(
      (error) => mapFreestyleError(error, { operation: "background cleanup" }),
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
    const mapError = (error: unknown) => mapFreestyleError(error, site);
    return runOperation(op, { provider: PROVIDER, operation: site.operation, defaultTimeoutMs, mapError }, task);
  }

  /**
   * {@link run} for the VM `handle` names, its id checked first
   * (`INVALID_REQUEST`, before any request) and, unless `owned` is `false`,
   * the VM proven ours (one lookup unless already known).
   */
  onVm<T>(
    handle: unknown,
    op: OpOptions | undefined,
    site: string | Omit<ErrorSite, "sandboxId">,
    defaultTimeoutMs: number,
    task: (vmId: string, call: OperationCall) => Promise<T>,
    { owned = true }: { readonly owned?: boolean } = {},
  ): Promise<T> {
    const where = typeof site === "string" ? { operation: site } : site;
    let vmId: string;
    try {
      vmId = vmIdOf(handle, where.operation);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.run(op, { ...where, sandboxId: vmId }, defaultTimeoutMs, async (call) => {
      if (owned) await this.assertOwned(vmId, where.operation, call);
      return task(vmId, call);
    });
  }

  /**
   * An SDK client whose every request carries `timing`'s signal and deadline
   * (see `callFetch`), and every credential and endpoint from the options.
   */
  async client(timing: CallTiming): Promise<FreestyleClient> {
    const sdk = await this.sdk();
    const { apiKey, baseUrl } = this.options;
    return new sdk.Freestyle({ apiKey, baseUrl, fetch: callFetch(this.options.fetch, timing) });
  }

  /** A handle on one VM for a client bound to `timing` (no request). */
  async vm(vmId: string, timing: CallTiming): Promise<FreestyleVm> {
    return (await this.client(timing)).vms.ref(vmId);
  }

  /**
   * A VM's record: `undefined` when no VM has this id, `FOREIGN_SANDBOX` when
   * it lacks our owner marker or a slug under our prefix. One `GET /v5/vms/{id}`
   * (the API also finds VMs by slug there; a record found by slug is not this id's).
   */
  async ownedVm(vmId: string, operation: string, timing: CallTiming): Promise<FreestyleVmData | undefined> {
    validVmId(vmId);
    const client = await this.client(timing);
    let data: FreestyleVmData;
    try {
      data = await client.vms.get(vmId);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw mapFreestyleError(error, { operation, sandboxId: vmId });
    }
    if (data.id !== vmId) return undefined;
    if (!isOurs(data, this.options.owner, this.options.namePrefix)) {
      throw foreignSandbox(PROVIDER, vmId, operation);
    }
    this.known.markOwned(vmId);
    return data;
  }

  /** Rejects `FOREIGN_SANDBOX` or `NOT_FOUND` unless `vmId` is ours; one lookup unless already known. */
  async assertOwned(vmId: string, operation: string, timing: CallTiming): Promise<void> {
    if (this.known.isOwned(vmId)) return;
    if (!(await this.ownedVm(vmId, operation, timing))) throw sandboxNotFound(PROVIDER, vmId, operation);
  }
}
