/**
 * The Agent37 emulator's wire conventions: the two error envelopes, the two
 * credential checks, JSON bodies.
 *
 * @module
 */

import type { Exchange } from "../harness/exchange.js";

/** An error the emulator answers with: hosting-plane `{ error: { code, message } }`, or the instance edge's flat `{ error: code }`. */
export class Agent37WireError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly flat = false,
  ) {
    super(message);
  }
}

/** Sends `error` in its envelope. */
export function sendError(exchange: Exchange, error: Agent37WireError, retryAfterSeconds?: number): void {
  const headers = retryAfterSeconds === undefined ? {} : { "retry-after": String(retryAfterSeconds) };
  const body = error.flat ? { error: error.code } : { error: { code: error.code, message: error.message } };
  exchange.json(error.status, body, headers);
}

/**
 * The code an injected status fault answers with: 429 `rate_limited`, 502
 * `provisioning_failed`, 503 `no_capacity`, 409 `try_again`, else `internal_error`.
 */
export function codeForStatus(status: number): string {
  if (status === 429) return "rate_limited";
  if (status === 502) return "provisioning_failed";
  if (status === 503) return "no_capacity";
  if (status === 409) return "try_again";
  if (status === 401) return "invalid_api_key";
  if (status === 404) return "not_found";
  return status < 500 ? "invalid_request" : "internal_error";
}

/** The harness's error replier for Agent37 routes (status faults, handler crashes). */
export function agent37ErrorReply(exchange: Exchange, status: number, message: string, retryAfter?: number): void {
  sendError(exchange, new Agent37WireError(status, codeForStatus(status), message), retryAfter);
}

/** Which header the instance edge accepts the workspace key in. */
export type InstanceAuth = "either" | "bearer" | "x-agent37-key";

/** Refuses a hosting-plane request without `Authorization: Bearer <key>` (401 `invalid_api_key`). */
export function checkBearer(exchange: Exchange, apiKey: string): void {
  if (exchange.header("authorization") !== `Bearer ${apiKey}`) {
    throw new Agent37WireError(401, "invalid_api_key", "missing or invalid API key");
  }
}

/** Refuses an instance-plane request without the key in an accepted header (401, flat envelope). */
export function checkInstanceKey(exchange: Exchange, apiKey: string, accepted: InstanceAuth): void {
  const bearer = exchange.header("authorization") === `Bearer ${apiKey}`;
  const keyed = exchange.header("x-agent37-key") === apiKey;
  const ok = accepted === "either" ? bearer || keyed : accepted === "bearer" ? bearer : keyed;
  if (!ok) throw new Agent37WireError(401, "invalid_api_key", "missing or invalid key", true);
}

/** The body as a JSON object (`{}` when empty); 400 `invalid_request` otherwise. */
export function jsonBody(exchange: Exchange): Record<string, unknown> {
  if (exchange.body.length === 0) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(exchange.body.toString("utf8"));
  } catch {
    throw new Agent37WireError(400, "invalid_request", "the body is not JSON");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new Agent37WireError(400, "invalid_request", "the body must be a JSON object");
  }
  return parsed as Record<string, unknown>;
}

/** A handler's errors answered in their envelope; anything unexpected as 500. */
export async function answering(exchange: Exchange, work: () => Promise<void> | void): Promise<void> {
  try {
    await work();
  } catch (error) {
    if (exchange.answered) return;
    if (error instanceof Agent37WireError) sendError(exchange, error);
    else sendError(exchange, new Agent37WireError(500, "internal_error", (error as Error)?.message ?? String(error)));
  }
}
