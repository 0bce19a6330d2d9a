// Test helper: the framework's own SandboxError, by code.
import assert from "node:assert/strict";
import type { SandboxError } from "deepagents";
import { loadDeepAgents } from "./internal/sdk.js";

/** Asserts `action` rejects (or throws) with the framework's `SandboxError` of `code`, and returns it. */
export async function expectSandboxError(action: () => unknown, code: string): Promise<SandboxError> {
  const sdk = await loadDeepAgents();
  let caught: unknown;
  try {
    await action();
  } catch (error) {
    caught = error;
  }
  assert.ok(sdk.SandboxError.isInstance(caught), `expected deepagents' SandboxError ${code}, got ${String(caught)}`);
  assert.ok(caught instanceof sdk.SandboxError, "the error is the loaded deepagents' own class");
  assert.equal(caught.code, code, caught.message);
  return caught;
}
