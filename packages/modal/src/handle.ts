import { invalidRequest, type SandboxHandle } from "@sandport/core";
import { checkHandle, handleRecipe } from "@sandport/core/adapter";

/** Provider name, in handles and errors. */
export const PROVIDER = "modal" as const;

/**
 * A handle to a Modal sandbox. Plain data; rebuild it in another process with `getById`.
 *
 * `resources` is set only on the handle `launch` returns, and only for the
 * limits the launch asked (`cpus`, `memoryMiB`): Modal's hard limits, which it
 * applies as sent. A handle from `getById` or `findByLabels` has none: what
 * the SDK reads of an existing sandbox (a poll, its tags, the ids of a listing)
 * says nothing of its resources, so none are reported rather than guessed.
 */
export interface ModalHandle extends SandboxHandle {
  /** Always `"modal"`. */
  readonly provider: "modal";
}

const handles = handleRecipe(PROVIDER, {
  valid: /^sb-[A-Za-z0-9]{1,64}$/,
  refusal: "a Modal sandbox id is sb- followed by letters and digits",
});

/** A handle from a sandbox's id and server-side tags (the caller checks ownership first); no `resources` (see {@link ModalHandle}). */
export function handleFromTags(sandboxId: string, tags: Readonly<Record<string, string>>): ModalHandle {
  return handles.toHandle(sandboxId, tags);
}

/** The sandbox id of a handle: a Modal handle (`checkHandle`) whose id can be a sandbox id of this runtime. */
export function sandboxIdOf(handle: unknown, operation: string): string {
  return validSandboxId(checkHandle(handle, PROVIDER, operation));
}

/** The alphabet of V1 sandbox ids (`sb-` and 22 of these), which the SDK tells apart by shape. */
const V1_ID = /^sb-[0-9A-Za-z]{22}$/;

/**
 * Refuses (`INVALID_REQUEST`) an id that cannot name a sandbox this runtime
 * creates, before it reaches a request: not `sb-` and letters and digits, or
 * shaped like a V1 sandbox id. This runtime creates only V2 sandboxes (the
 * ones `sandboxes.list` returns); V1 sandboxes (GPU ones among them) cannot
 * be found again by labels, so they are never taken for ours.
 */
export function validSandboxId(sandboxId: unknown): string {
  const id = handles.validId(sandboxId);
  if (V1_ID.test(id)) {
    throw invalidRequest(
      "this id has the shape of a V1 Modal sandbox, which this runtime never creates and cannot list",
      { field: "id" },
      PROVIDER,
    );
  }
  return id;
}
