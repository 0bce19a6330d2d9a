import { invalidRequest } from "../errors/factories.js";
import { validatePriceTable } from "../fleet/usage/price-table.js";
import type { SandboxHandle } from "../port/sandbox-handle.js";
import type { SandboxRuntime } from "../port/sandbox-runtime.js";
import { validateRetryPolicy } from "../timing/retry.js";
import { refuseUnknownKeys, refuseUnknownShape } from "../validation/known-keys.js";
import { validateLabels } from "../validation/labels.js";
import { validateTimeoutMs } from "../validation/numbers.js";
import { type ValidatedFile, validateExecRequest, validateFiles, validateLaunchSpec } from "../validation/requests.js";
import { normalizeWorkspacePath } from "../validation/workspace-path.js";
import { ORCHESTRATOR_OPTION_KEYS, ORCHESTRATOR_TIMEOUT_KEYS, type OrchestratorOptions } from "./options.js";
import {
  type AcquireSpec,
  isReuseSpec,
  REUSE_SPEC_KEYS,
  type TeardownPolicy,
  WORKLOAD_KEYS,
  WORKLOAD_STEP_KEYS,
  type Workload,
} from "./workload.js";

/** Every teardown policy a workload may name. */
export const TEARDOWN_POLICIES: readonly TeardownPolicy[] = ["always", "on-success", "keep"];

/**
 * Checks the whole workload against `runtime`'s workspace before anything is
 * sent, refusing (`INVALID_REQUEST`) anything malformed or unknown.
 */
export function validateWorkload(
  workload: Workload,
  runtime: SandboxRuntime,
): { readonly files: readonly ValidatedFile[] } {
  if (typeof workload !== "object" || workload === null) throw invalidRequest("workload must be an object");
  const context = { root: runtime.workspaceRoot, provider: runtime.provider };
  refuseUnknownKeys(workload, WORKLOAD_KEYS, "workload", context.provider);
  validateAcquireSpec(workload.launch, runtime);
  const files = validateFiles(workload.files ?? [], context);
  if (workload.steps !== undefined && !Array.isArray(workload.steps)) throw invalidRequest("steps must be an array");
  for (const [index, step] of (workload.steps ?? []).entries()) {
    refuseUnknownShape(step, WORKLOAD_STEP_KEYS, `steps[${index}]`, context.provider);
    const { name, continueOnFailure, ...request } = step;
    if (name !== undefined && typeof name !== "string") throw invalidRequest(`steps[${index}].name must be a string`);
    if (continueOnFailure !== undefined && typeof continueOnFailure !== "boolean") {
      throw invalidRequest(`steps[${index}].continueOnFailure must be a boolean`);
    }
    validateExecRequest(request, context);
  }
  if (workload.collect !== undefined && !Array.isArray(workload.collect))
    throw invalidRequest("collect must be an array");
  for (const [index, path] of (workload.collect ?? []).entries()) {
    normalizeWorkspacePath(path, { ...context, field: `collect[${index}]` });
  }
  if (workload.teardown !== undefined && !TEARDOWN_POLICIES.includes(workload.teardown)) {
    throw invalidRequest(`teardown must be one of ${TEARDOWN_POLICIES.join(", ")}`);
  }
  return { files };
}

/**
 * Checks how a workload or session acquires its sandbox: a launch spec, or a
 * reuse by a non-empty id or by labels (reserved ones allowed), not both.
 */
export function validateAcquireSpec(spec: AcquireSpec, runtime: SandboxRuntime): void {
  if (typeof spec !== "object" || spec === null) {
    throw invalidRequest(
      "launch is required: a launch spec ({} launches with the runtime's defaults) or { reuse: { id } | { labels } }",
      { field: "launch" },
    );
  }
  if (!isReuseSpec(spec)) {
    validateLaunchSpec(spec, runtime.provider);
    return;
  }
  refuseUnknownKeys(spec, REUSE_SPEC_KEYS, "launch (a reuse spec)", runtime.provider);
  const target = spec.reuse as { id?: unknown; labels?: unknown };
  if (typeof target !== "object" || target === null) throw invalidRequest("reuse must be { id } or { labels }");
  refuseUnknownKeys(target, ["id", "labels"], "reuse", runtime.provider);
  if (target.id !== undefined && target.labels !== undefined) {
    throw invalidRequest("reuse must be { id } or { labels }, not both");
  }
  if (target.id !== undefined) {
    if (typeof target.id !== "string" || target.id === "") throw invalidRequest("reuse.id must be a non-empty string");
  } else if (target.labels !== undefined) {
    validateLabels(target.labels, { field: "reuse.labels", allowReserved: true });
  } else {
    throw invalidRequest("reuse must be { id } or { labels }");
  }
}

/**
 * Refuses orchestrator options with an unknown key (there, in `timeouts` or in
 * `retry`), a timeout that is not a duration, or a retry policy out of range.
 */
export function checkOrchestratorOptions(options: OrchestratorOptions<SandboxHandle>): void {
  refuseUnknownShape(options, ORCHESTRATOR_OPTION_KEYS, "SandboxOrchestrator options");
  if (options.prices !== undefined) validatePriceTable(options.prices, "SandboxOrchestrator options prices");
  validateRetryPolicy(options.retry, "SandboxOrchestrator options retry");
  const timeouts = options.timeouts ?? {};
  refuseUnknownShape(timeouts, ORCHESTRATOR_TIMEOUT_KEYS, "SandboxOrchestrator options timeouts");
  for (const [name, value] of Object.entries(timeouts)) validateTimeoutMs(value, `timeouts.${name}`);
}
