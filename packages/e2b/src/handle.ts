import type { SandboxHandle } from "@sandport/core";
import { handleRecipe } from "@sandport/core/adapter";
import type { E2BSandboxInfo } from "./internal/sdk-types.js";

/** Provider name, in handles and errors. */
export const PROVIDER = "e2b";

/** A handle to an E2B sandbox. Plain data; rebuild it in another process with `getById`. */
export interface E2BHandle extends SandboxHandle {
  /** Always `"e2b"`. */
  readonly provider: "e2b";
}

const handles = handleRecipe(PROVIDER, {
  valid: /^[A-Za-z0-9_-]{1,128}$/,
  refusal: "sandbox id must be 1-128 characters of [A-Za-z0-9_-]",
});

/** A handle from what E2B reports about a sandbox (the caller checks ownership first). */
export function handleFromInfo(info: E2BSandboxInfo): E2BHandle {
  return handles.toHandle(info.sandboxId, info.metadata, info.startedAt);
}

/** The sandbox id of a handle: an E2B handle (`checkHandle`) whose id can be an E2B sandbox id. */
export const sandboxIdOf = handles.idOf;

/** Refuses (`INVALID_REQUEST`) an id that cannot be an E2B sandbox id, before it reaches a URL. */
export const validSandboxId = handles.validId;
