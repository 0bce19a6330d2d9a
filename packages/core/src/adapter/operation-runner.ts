import type { OpOptions } from "../port/op-options.js";
import type { ErrorMapper, ErrorSite } from "./error-mapper.js";
import { type OperationCall, runOperation } from "./run-operation.js";

/** Runs an adapter's port methods; see {@link createOperationRunner}. */
export interface OperationRunner {
  /** `runOperation` with the provider and its error mapper bound: per-call options checked, deadline applied, errors mapped at `site`. */
  run<T>(
    op: OpOptions | undefined,
    site: ErrorSite,
    defaultTimeoutMs: number,
    task: (call: OperationCall) => Promise<T>,
  ): Promise<T>;
  /**
   * {@link run} for the sandbox `handle` names: its id is checked first (a
   * rejection, `INVALID_REQUEST` before any request) and is in the site of every error.
   */
  onHandle<T>(
    handle: unknown,
    op: OpOptions | undefined,
    site: string | Omit<ErrorSite, "sandboxId">,
    defaultTimeoutMs: number,
    task: (sandboxId: string, call: OperationCall) => Promise<T>,
  ): Promise<T>;
}

/** What {@link createOperationRunner} binds. */
export interface OperationRunnerOptions {
  readonly provider: string;
  /** The adapter's error mapper (`createErrorMapper`). */
  readonly mapError: ErrorMapper;
  /** The sandbox id of a handle of this provider (`checkHandle`, then the provider's id format); throws `INVALID_REQUEST`. */
  readonly sandboxIdOf: (handle: unknown, operation: string) => string;
}

/** The frame every port method of an adapter runs in, written once: `run` and `onHandle`. */
export function createOperationRunner(options: OperationRunnerOptions): OperationRunner {
  const { provider, mapError, sandboxIdOf } = options;
  const run: OperationRunner["run"] = (op, site, defaultTimeoutMs, task) =>
    runOperation(
      op,
      { provider, operation: site.operation, defaultTimeoutMs, mapError: (error) => mapError(error, site) },
      task,
    );
  return {
    run,
    onHandle(handle, op, site, defaultTimeoutMs, task) {
      const where = typeof site === "string" ? { operation: site } : site;
      let sandboxId: string;
      try {
        sandboxId = sandboxIdOf(handle, where.operation);
      } catch (error) {
        return Promise.reject(error);
      }
      return run(op, { ...where, sandboxId }, defaultTimeoutMs, (call) => task(sandboxId, call));
    },
  };
}
