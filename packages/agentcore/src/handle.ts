import type { SandboxHandle } from "@sandport/core";
import { handleRecipe } from "@sandport/core/adapter";

/** Provider name, in handles and errors. */
export const PROVIDER = "agentcore";

/** A handle to an AgentCore Code Interpreter session. Plain data; rebuild it in another process with `getById`. */
export interface AgentCoreHandle extends SandboxHandle {
  /** Always `"agentcore"`. */
  readonly provider: "agentcore";
}

const handles = handleRecipe(PROVIDER, {
  valid: /^[0-9a-zA-Z]{1,40}$/,
  refusal: "session id must be 1-40 characters of [0-9a-zA-Z]",
});

/** A handle for a session whose labels were read (the caller checks ownership first). */
export function handleFromSession(
  sessionId: string,
  labels: Readonly<Record<string, string>>,
  createdAt?: Date,
): AgentCoreHandle {
  return handles.toHandle(sessionId, labels, createdAt);
}

/** The session id of a handle: an AgentCore handle (`checkHandle`) whose id can be a session id. */
export const sessionIdOf = handles.idOf;

/** Refuses (`INVALID_REQUEST`) an id that cannot be a session id, before it reaches a request. */
export const validSessionId = handles.validId;
