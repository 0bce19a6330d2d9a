import { invalidRequest } from "../errors/factories.js";
import type { CommandRef } from "../port/command.js";
import type { ExecRequest } from "../port/exec-request.js";
import { START_COMMAND_REQUEST_KEYS, type StartCommandRequest } from "../port/sandbox-runtime.js";
import { refuseUnknownShape } from "./known-keys.js";

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

/**
 * Splits a `StartCommandRequest` into its validated `sessionId` and the exec
 * request to validate as any other. A key of neither (a misspelt `sessionId`
 * too) is refused first, naming the nearest known key. Throws `INVALID_REQUEST`.
 */
export function splitStartCommandRequest(
  request: unknown,
  provider?: string,
): { readonly sessionId: string; readonly execRequest: ExecRequest } {
  refuseUnknownShape(request, START_COMMAND_REQUEST_KEYS, "startCommand request", provider);
  const { sessionId, ...execRequest } = request as StartCommandRequest;
  return { sessionId: validateSessionId(sessionId, provider), execRequest: execRequest as ExecRequest };
}
