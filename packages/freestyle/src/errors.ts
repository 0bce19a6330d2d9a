import { createErrorMapper, type ErrorClass, errorName } from "@sandport/core/adapter";
import { PROVIDER } from "./handle.js";

/** Code of the answer the per-call transport gives, without sending anything, once its call has ended. */
export const CALL_ENDED_CODE = "SANDPORT_CALL_ENDED";

/**
 * The API's error codes (`FreestyleApiError.code`) that say more than their
 * HTTP status. Everything else goes by the status and the dropped-connection
 * rules every adapter shares (`createErrorMapper`).
 */
const FREESTYLE_CODES: Readonly<Record<string, ErrorClass>> = {
  VM_NOT_FOUND: { code: "NOT_FOUND", retryable: false },
  FILE_NOT_FOUND: { code: "NOT_FOUND", retryable: false },
  UNAUTHORIZED: { code: "AUTH" },
  SNAPSHOT_NOT_FOUND: { code: "INVALID_REQUEST" },
  USER_NOT_FOUND: { code: "INVALID_REQUEST" },
  // The work ran, but its answer was too large for the API to keep for the poll.
  BACKGROUND_RESULT_UNSTORABLE: { code: "OUTPUT_LIMIT", retryable: false },
  [CALL_ENDED_CODE]: { code: "DEADLINE_EXCEEDED", retryable: true },
};

/** Maps anything the freestyle SDK (or its transport) throws, at a site, to a `SandportError` (the vendor error is the `cause`). */
export const mapFreestyleError = createErrorMapper({
  provider: PROVIDER,
  byName: {
    // A failed fetch with no HTTP answer: the connection dropped or never opened.
    FreestyleTransportError: "PROVIDER_UNAVAILABLE",
    TimeoutError: { code: "DEADLINE_EXCEEDED", retryable: true },
    AbortError: { code: "DEADLINE_EXCEEDED", retryable: true },
  },
  classify: (error) => {
    if (errorName(error) !== "FreestyleApiError") return undefined;
    const code = (error as { code?: unknown }).code;
    return typeof code === "string" ? FREESTYLE_CODES[code] : undefined;
  },
});

/** True when the SDK reports that the VM or the file does not exist. */
export const isNotFound = mapFreestyleError.isNotFound;
