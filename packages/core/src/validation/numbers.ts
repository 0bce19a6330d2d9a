import { invalidRequest } from "../errors/factories.js";
import { describeValue } from "./known-keys.js";

/** Largest timeout accepted anywhere: what a Node timer can hold (~24.8 days). */
export const MAX_TIMEOUT_MS = 2_147_483_647;

/** Largest output cap accepted anywhere (256 MiB): output is held in memory. */
export const MAX_OUTPUT_BYTES = 256 * 1024 * 1024;

/**
 * Checks an optional duration in milliseconds: a positive integer no larger
 * than {@link MAX_TIMEOUT_MS}. Throws `INVALID_REQUEST` for zero, negative,
 * fractional, `NaN` or infinite values.
 */
export function validateTimeoutMs(value: unknown, field: string, provider?: string): number | undefined {
  if (value === undefined) return undefined;
  refuseNonNumber(value, field, provider);
  if (!Number.isInteger(value) || value <= 0 || value > MAX_TIMEOUT_MS) {
    throw invalidRequest(
      `${field} must be a positive integer number of milliseconds up to ${MAX_TIMEOUT_MS}, got ${String(value)}`,
      { field, value: String(value) },
      provider,
    );
  }
  return value;
}

/**
 * Checks an optional output cap: a positive integer up to
 * {@link MAX_OUTPUT_BYTES} (the output is held in memory). Anything else is
 * `INVALID_REQUEST`, like every other malformed parameter.
 */
export function validateMaxOutputBytes(
  value: unknown,
  field = "maxOutputBytes",
  provider?: string,
): number | undefined {
  if (value === undefined) return undefined;
  refuseNonNumber(value, field, provider);
  if (!Number.isInteger(value) || value <= 0) {
    throw invalidRequest(`${field} must be a positive integer, got ${String(value)}`, { field }, provider);
  }
  if (value > MAX_OUTPUT_BYTES) {
    throw invalidRequest(
      `${field} ${value} is above the ${MAX_OUTPUT_BYTES}-byte ceiling`,
      { field, limit: MAX_OUTPUT_BYTES },
      provider,
    );
  }
  return value;
}

/** Checks an optional positive finite number (a resource amount). Throws `INVALID_REQUEST` otherwise. */
export function validatePositiveNumber(value: unknown, field: string, provider?: string): number | undefined {
  if (value === undefined) return undefined;
  refuseNonNumber(value, field, provider);
  if (!Number.isFinite(value) || value <= 0) {
    throw invalidRequest(`${field} must be a positive number, got ${String(value)}`, { field }, provider);
  }
  return value;
}

/**
 * Refuses a value that is not a number at all, saying what it is instead: a
 * `"1000"` passed for `1000` reads `timeoutMs must be a number, got string "1000"`.
 */
export function refuseNonNumber(value: unknown, field: string, provider?: string): asserts value is number {
  if (typeof value !== "number") {
    throw invalidRequest(
      `${field} must be a number, got ${describeValue(value)}`,
      { field, value: describeValue(value) },
      provider,
    );
  }
}
