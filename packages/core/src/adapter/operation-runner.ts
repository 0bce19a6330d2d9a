import type { OpOptions } from "../port/op-options.js";
import type { ErrorMapper, ErrorSite } from "./error-mapper.js";
import { type OperationCall, runOperation } from "./run-operation.js";

/** What an {@link OperationRunner} needs: the provider, its error mapper and how a handle names a sandbox. */
export interface OperationRunnerOptions {
  /** Provider name, stamped on errors. */
  readonly provider: string;
  /** The adapter's error mapper (`createErrorMapper`), applied at each call's site. */
  readonly mapError: ErrorMapper;
  /**
   * The sandbox id a handle names, checked before any request: `checkHandle`,
   * the provider's id format, any boundary of its own. Throws to refuse.
   */
  readonly sandboxIdOf: (handle: unknown, operation: string) => string;
}

/**
 * The frame of every port method of one adapter: {@link runOperation} with the
 * adapter's provider and error mapper, and the same for calls on a handle,
 * whose sandbox id is checked first.
 *
 * @deprecated `AdapterContext` holds the same frame (`run`, `onHandle`) with
 * the rest of an adapter's state; this class goes once the adapters that
 * still extend or hold it are rebuilt on the context.
 */
export class OperationRunner {
  readonly #options: OperationRunnerOptions;

  constructor(options: OperationRunnerOptions) {
    this.#options = options;
  }

  /** Runs one port method: per-call options checked, deadline applied, errors mapped at `site`. */
  run<T>(
    op: OpOptions | undefined,
    site: ErrorSite,
    defaultTimeoutMs: number,
    task: (call: OperationCall) => Promise<T>,
  ): Promise<T> {
    const { provider, mapError } = this.#options;
    const context = {
      provider,
      operation: site.operation,
      defaultTimeoutMs,
      mapError: (error: unknown) => mapError(error, site),
    };
    return runOperation(op, context, task);
  }

  /**
   * {@link run} for the sandbox `handle` names: its id is checked
   * (`sandboxIdOf`) before anything else, then named in errors.
   */
  async onHandle<T>(
    handle: unknown,
    op: OpOptions | undefined,
    site: string | Omit<ErrorSite, "sandboxId">,
    defaultTimeoutMs: number,
    task: (sandboxId: string, call: OperationCall) => Promise<T>,
  ): Promise<T> {
    const where = typeof site === "string" ? { operation: site } : site;
    const sandboxId = this.#options.sandboxIdOf(handle, where.operation);
    return this.run(op, { ...where, sandboxId }, defaultTimeoutMs, (call) => task(sandboxId, call));
  }
}
