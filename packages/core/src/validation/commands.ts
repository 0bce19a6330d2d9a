import { invalidRequest } from "../errors/factories.js";
import type { CommandRef } from "../port/command.js";

const SESSION_ID = /^(?!\.{1,2}$)[A-Za-z0-9._-]{1,128}$/;

/**
 * The one rule for `StartCommandRequest.sessionId`, in every runtime: 1-128
 * characters of `[A-Za-z0-9._-]`, not `.` or `..` (it becomes a file name, a
 * provider session name or an env value). Throws `INVALID_REQUEST`.
 */
export function validateSessionId(sessionId: unknown, provider?: string): string {
  if (typeof sessionId !== "string" || !SESSION_ID.test(sessionId)) {
    throw invalidRequest(
      "sessionId must be 1-128 characters of [A-Za-z0-9._-], not . or ..",
      { field: "sessionId" },
      provider,
    );
  }
  return sessionId;
}

/** Checks a `CommandRef`: a valid session id and a non-empty command id. Throws `INVALID_REQUEST`. */
export function validateCommandRef(ref: unknown, provider?: string): CommandRef {
  const candidate = ref as Partial<CommandRef> | null;
  if (typeof candidate !== "object" || candidate === null) {
    throw invalidRequest("command ref must be { sessionId, commandId }", { field: "ref" }, provider);
  }
  const sessionId = validateSessionId(candidate.sessionId, provider);
  if (typeof candidate.commandId !== "string" || candidate.commandId === "" || candidate.commandId.length > 256) {
    throw invalidRequest("command ref's commandId must be a non-empty string", { field: "ref.commandId" }, provider);
  }
  return { sessionId, commandId: candidate.commandId };
}
