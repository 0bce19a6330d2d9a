import { SandportError } from "../errors/sandport-error.js";

/**
 * The value of `operation`, or `undefined` when it rejects with `NOT_FOUND`
 * (the one error that means "absent"); every other failure still rejects.
 * For callers that answer "missing" with a value (a framework's `null`).
 */
export async function whenFound<T>(operation: Promise<T>): Promise<T | undefined> {
  try {
    return await operation;
  } catch (error) {
    if (SandportError.hasCode(error, "NOT_FOUND")) return undefined;
    throw error;
  }
}
