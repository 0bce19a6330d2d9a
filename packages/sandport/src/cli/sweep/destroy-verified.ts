import { type SandboxHandle, type SandboxRuntime, SandportError } from "@sandport/core";

/** What destroying one sandbox came to. */
export interface DestroyOutcome {
  readonly id: string;
  /** `destroyed`: gone, and proven gone; `unverified`: destroy resolved but a lookup still finds it; `failed`: destroy rejected. */
  readonly outcome: "destroyed" | "unverified" | "failed";
  /** Why, for `unverified` and `failed`. */
  readonly reason?: string;
}

/**
 * Destroys a sandbox, then checks for it the way a caller would: by id where
 * the runtime reattaches, and in the owner's listing where it searches labels.
 * Found by either, it is `unverified`.
 */
export async function destroyVerified(
  runtime: SandboxRuntime,
  handle: SandboxHandle,
  signal: AbortSignal,
): Promise<DestroyOutcome> {
  try {
    await runtime.destroy(handle, { signal });
  } catch (error) {
    return { id: handle.id, outcome: "failed", reason: reasonOf(error) };
  }
  try {
    const byId = runtime.getById ? await runtime.getById(handle.id, { signal }) : undefined;
    if (byId !== undefined) return { id: handle.id, outcome: "unverified", reason: "getById still finds it" };
    const listed = runtime.findByLabels ? await runtime.findByLabels({}, { signal }) : [];
    if (listed.some((other) => other.id === handle.id)) {
      return { id: handle.id, outcome: "unverified", reason: "the owner's listing still has it" };
    }
  } catch (error) {
    return { id: handle.id, outcome: "unverified", reason: `could not look it up: ${reasonOf(error)}` };
  }
  return { id: handle.id, outcome: "destroyed" };
}

function reasonOf(error: unknown): string {
  if (SandportError.isInstance(error)) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
