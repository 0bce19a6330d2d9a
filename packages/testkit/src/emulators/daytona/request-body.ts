/** Readers for JSON request bodies and query values; each throws {@link BadRequestError} on a malformed field. */

import type { Exchange } from "../harness/exchange.js";

/** A malformed request; routes answer it with 400 in their service's shape. */
export class BadRequestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BadRequestError";
  }
}

/** The JSON object body; an empty body is `{}`. */
export function readObject(exchange: Exchange): Record<string, unknown> {
  if (exchange.body.length === 0) return {};
  let value: unknown;
  try {
    value = JSON.parse(exchange.body.toString("utf8"));
  } catch {
    throw new BadRequestError("request body is not valid JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new BadRequestError("request body must be a JSON object");
  }
  return value as Record<string, unknown>;
}

/** A map of strings; `{}` when absent. */
export function stringMap(body: Record<string, unknown>, field: string): Record<string, string> {
  const value = body[field];
  if (value === undefined || value === null) return {};
  if (typeof value !== "object" || Array.isArray(value))
    throw new BadRequestError(`${field} must be an object of strings`);
  const map: Record<string, string> = {};
  for (const [key, entry] of Object.entries(value)) {
    if (typeof entry !== "string") throw new BadRequestError(`${field}.${key} must be a string`);
    map[key] = entry;
  }
  return map;
}

/** An optional string. */
export function optionalString(body: Record<string, unknown>, field: string): string | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw new BadRequestError(`${field} must be a string`);
  return value;
}

/** An optional boolean. */
export function optionalBoolean(body: Record<string, unknown>, field: string): boolean | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "boolean") throw new BadRequestError(`${field} must be a boolean`);
  return value;
}

/** An optional integer of at least `minimum`. */
export function optionalInteger(body: Record<string, unknown>, field: string, minimum: number): number | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < minimum) {
    throw new BadRequestError(`${field} must be an integer of at least ${minimum}`);
  }
  return value;
}

/** An integer from a query string or path segment, of at least `minimum`. */
export function parseInteger(text: string, field: string, minimum: number): number {
  const value = Number(text);
  if (text.trim() === "" || !Number.isInteger(value) || value < minimum) {
    throw new BadRequestError(`${field} must be an integer of at least ${minimum}`);
  }
  return value;
}

/**
 * Refuse fields the emulator does not emulate, rather than drop them
 * silently. A field set to its "off" value (`false`, `0`, `[]`) asks for
 * nothing and passes.
 */
export function refuseFields(body: Record<string, unknown>, fields: readonly string[]): void {
  for (const field of fields) {
    const value = body[field];
    if (value === undefined || value === null || value === false || value === 0) continue;
    if (Array.isArray(value) && value.length === 0) continue;
    throw new BadRequestError(`${field} is not emulated`);
  }
}
