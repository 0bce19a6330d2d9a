/** Reading and checking JSON request bodies; every helper answers 400 itself and returns `undefined` on bad input. */

import type { Exchange } from "../harness/exchange.js";
import { badRequest } from "./errors.js";

/** The JSON object body, or `undefined` after answering 400. An empty body is `{}`. */
export function readObject(exchange: Exchange): Record<string, unknown> | undefined {
  if (exchange.body.length === 0) return {};
  let value: unknown;
  try {
    value = JSON.parse(exchange.body.toString("utf8"));
  } catch {
    badRequest(exchange, "request body is not valid JSON");
    return undefined;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    badRequest(exchange, "request body must be a JSON object");
    return undefined;
  }
  return value as Record<string, unknown>;
}

/** A map of strings (absent or `null` is `{}`), or `undefined` after answering 400. */
export function readStringMap(exchange: Exchange, value: unknown, field: string): Record<string, string> | undefined {
  if (value === undefined || value === null) return {};
  if (typeof value !== "object" || Array.isArray(value)) {
    badRequest(exchange, `${field} must be an object of strings`);
    return undefined;
  }
  const map: Record<string, string> = {};
  for (const [key, entry] of Object.entries(value)) {
    if (typeof entry !== "string") {
      badRequest(exchange, `${field}.${key} must be a string`);
      return undefined;
    }
    map[key] = entry;
  }
  return map;
}

/** An integer in `[min, max]`, `fallback` when absent, or `undefined` after answering 400. */
export function readInteger(
  exchange: Exchange,
  value: unknown,
  field: string,
  range: { readonly min: number; readonly max: number; readonly fallback?: number },
): number | undefined {
  if (value === undefined || value === null) {
    if (range.fallback !== undefined) return range.fallback;
    badRequest(exchange, `${field} is required`);
    return undefined;
  }
  if (typeof value !== "number" || !Number.isInteger(value) || value < range.min || value > range.max) {
    badRequest(exchange, `${field} must be an integer from ${range.min} to ${range.max}`);
    return undefined;
  }
  return value;
}

/** An optional string (absent or `null` is `undefined`); `false` after answering 400. */
export function readOptionalString(exchange: Exchange, value: unknown, field: string): string | undefined | false {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") {
    badRequest(exchange, `${field} must be a string`);
    return false;
  }
  return value;
}
