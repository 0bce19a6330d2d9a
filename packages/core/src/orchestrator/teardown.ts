import type { SandportError } from "../errors/sandport-error.js";
import type { SandboxHandle } from "../port/sandbox-handle.js";
import type { SandboxRuntime } from "../port/sandbox-runtime.js";
import type { OrchestratorTimeouts } from "./options.js";
import { type CallContext, safeCall } from "./safe-call.js";

/** Outcome of {@link destroySandbox}. */
export type DestroyOutcome =
  | { readonly ok: true; readonly durationMs: number }
  | { readonly ok: false; readonly error: SandportError; readonly durationMs: number };

/**
 * Destroys a sandbox with retries and its own deadline, deliberately ignoring
 * the caller's abort signal: teardown after an abort must still happen. Never
 * throws; a failure is returned and emitted as `teardown-failed`.
 */
export async function destroySandbox<H extends SandboxHandle>(
  runtime: SandboxRuntime<H>,
  handle: H,
  context: CallContext,
  timeouts: OrchestratorTimeouts,
): Promise<DestroyOutcome> {
  const started = performance.now();
  try {
    await safeCall(context, "destroy", undefined, () => runtime.destroy(handle, { timeoutMs: timeouts.destroyMs }));
    const durationMs = performance.now() - started;
    context.emit({ type: "destroyed", sandboxId: handle.id, durationMs });
    return { ok: true, durationMs };
  } catch (error) {
    const failure = error as SandportError;
    context.emit({ type: "teardown-failed", sandboxId: handle.id, error: failure });
    return { ok: false, error: failure, durationMs: performance.now() - started };
  }
}
