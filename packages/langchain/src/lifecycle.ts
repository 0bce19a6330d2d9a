import {
  type BridgeOptions,
  checkBridgeOptions,
  invalidRequest,
  type Labels,
  type SandboxHandle,
  validateLabelQuery,
  whenFound,
} from "@sandport/core";
import type { DeepAgentsSdk } from "./internal/sdk.js";
import { sandboxError } from "./lifecycle-error.js";
import { DELETE_ALL_OPTION_KEYS, FROM_ID_OPTION_KEYS } from "./options.js";

/**
 * The sandbox `fromId` attaches to, through the runtime's `getById`. `id` is
 * the runtime's sandbox id or the bridge's `<provider>:<sandbox id>` (what a
 * sandbox's `id` reads). Absent is the framework's `SANDBOX_NOT_FOUND`; a
 * runtime without `getById` is `NOT_SUPPORTED` before any call.
 */
export async function attachById<H extends SandboxHandle>(
  sdk: DeepAgentsSdk,
  id: string,
  options: BridgeOptions<H>,
): Promise<H> {
  checkBridgeOptions(options, FROM_ID_OPTION_KEYS, "fromId options");
  const { runtime } = options;
  if (typeof id !== "string" || id === "") {
    throw invalidRequest("fromId: id must be a non-empty string", { field: "id" }, runtime.provider);
  }
  if (typeof runtime.getById !== "function") {
    const message = `The ${runtime.provider} runtime cannot find a sandbox by id (it has no getById)`;
    throw sandboxError(sdk, message, "NOT_SUPPORTED");
  }
  const prefix = `${runtime.provider}:`;
  const sandboxId = id.startsWith(prefix) ? id.slice(prefix.length) : id;
  const handle = await whenFound(runtime.getById(sandboxId));
  if (!handle) throw sandboxError(sdk, `Sandbox not found: ${id}`, "SANDBOX_NOT_FOUND");
  return handle;
}

/**
 * Destroys every sandbox with all of `labels` through the runtime's
 * `findByLabels` and `destroy`, resolving to how many. A runtime without
 * `findByLabels` is `NOT_SUPPORTED` before any call. Every destroy is tried;
 * if any failed, the call rejects with an `AggregateError` of their errors.
 */
export async function deleteByLabels(
  sdk: DeepAgentsSdk,
  labels: Labels,
  options: Pick<BridgeOptions, "runtime">,
): Promise<number> {
  checkBridgeOptions(options, DELETE_ALL_OPTION_KEYS, "deleteAll options");
  const { runtime } = options;
  const query = validateLabelQuery(labels, runtime.provider);
  if (typeof runtime.findByLabels !== "function") {
    const message = `The ${runtime.provider} runtime cannot find sandboxes by labels (it has no findByLabels)`;
    throw sandboxError(sdk, message, "NOT_SUPPORTED");
  }
  const found = await runtime.findByLabels(query);
  const outcomes = await Promise.allSettled(found.map((handle) => runtime.destroy(handle)));
  const failures = outcomes.flatMap((outcome) => (outcome.status === "rejected" ? [outcome.reason] : []));
  if (failures.length > 0) {
    const message = `deleteAll: ${failures.length} of the ${found.length} sandboxes labelled ${JSON.stringify(query)} could not be destroyed`;
    throw new AggregateError(failures, message);
  }
  return found.length;
}
