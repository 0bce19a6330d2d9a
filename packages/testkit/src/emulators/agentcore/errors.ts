/**
 * AgentCore's error answers: a JSON `{ message }` body whose type is the
 * `x-amzn-errortype` header (the SDK picks the exception class from it), and
 * the same types as exception frames inside an Invoke event stream.
 *
 * @module
 */

import type { Exchange } from "../harness/exchange.js";
import type { ErrorReplier } from "../harness/router.js";

/** The modeled exceptions and their HTTP statuses (the SDK's schema; `ServiceQuotaExceededException` is 402). */
export const EXCEPTION_STATUS = {
  ValidationException: 400,
  AccessDeniedException: 403,
  ResourceNotFoundException: 404,
  ConflictException: 409,
  ServiceQuotaExceededException: 402,
  ThrottlingException: 429,
  InternalServerException: 500,
} as const;

/** One of the modeled exception names. */
export type ExceptionName = keyof typeof EXCEPTION_STATUS;

/** A failure a handler throws; answered in AgentCore's error shape. */
export class AgentCoreError extends Error {
  readonly type: ExceptionName;
  readonly reason: string | undefined;

  constructor(type: ExceptionName, message: string, reason?: string) {
    super(message);
    this.name = "AgentCoreError";
    this.type = type;
    this.reason = reason;
  }

  get status(): number {
    return EXCEPTION_STATUS[this.type];
  }
}

/** 400 `ValidationException` with the `reason` AgentCore gives a field it refuses. */
export function validation(message: string, reason = "FieldValidationFailed"): AgentCoreError {
  return new AgentCoreError("ValidationException", message, reason);
}

/** 404 `ResourceNotFoundException`. */
export function notFound(message: string): AgentCoreError {
  return new AgentCoreError("ResourceNotFoundException", message);
}

/** The exception name for a status the fault layer injects. */
export function exceptionForStatus(status: number): ExceptionName {
  const found = (Object.entries(EXCEPTION_STATUS) as [ExceptionName, number][]).find(([, code]) => code === status);
  if (found) return found[0];
  return status >= 500 ? "InternalServerException" : "ValidationException";
}

/** Answer `error` as AgentCore does. */
export function replyError(exchange: Exchange, error: AgentCoreError, headers: Record<string, string> = {}): void {
  exchange.json(
    error.status,
    { message: error.message, ...(error.reason ? { reason: error.reason } : {}) },
    {
      "x-amzn-errortype": `${error.type}:http://internal.amazon.com/coral/com.amazonaws.bedrockagentcore/`,
      "x-amzn-requestid": requestId(),
      ...headers,
    },
  );
}

/** The error replier of every route: injected faults and handler crashes in AgentCore's shape. */
export const agentCoreErrorReply: ErrorReplier = (exchange, status, message, retryAfterSeconds) => {
  replyError(
    exchange,
    new AgentCoreError(exceptionForStatus(status), message),
    retryAfterSeconds === undefined ? {} : { "retry-after": String(retryAfterSeconds) },
  );
};

/** A fresh request id, as AgentCore sends in `x-amzn-requestid`. */
export function requestId(): string {
  return crypto.randomUUID();
}
