import { invalidRequest, toSandportError } from "../errors/factories.js";
import { SandportError } from "../errors/sandport-error.js";
import type { ExecRequest } from "../port/exec-request.js";
import type { SandboxHandle } from "../port/sandbox-handle.js";
import type { SandboxRuntime } from "../port/sandbox-runtime.js";

/** Health checks failed in a row within one `lease()` before it gives up (each sandbox replaced). */
export const UNHEALTHY_IN_A_ROW = 3;

/** Runs `check` in the sandbox: `undefined` when it exits 0, else why not. Never throws. */
export async function healthProblem(
  runtime: SandboxRuntime,
  handle: SandboxHandle,
  check: ExecRequest,
  timeoutMs: number,
): Promise<SandportError | undefined> {
  try {
    const result = await runtime.exec(handle, check, { timeoutMs });
    if (result.exitCode === 0) return undefined;
    return new SandportError({
      code: "UNEXPECTED",
      provider: runtime.provider,
      message: `sandbox ${handle.id}: the health check exited ${result.exitCode}`,
      details: { sandboxId: handle.id, exitCode: result.exitCode },
    });
  } catch (error) {
    return toSandportError(error, runtime.provider);
  }
}

/** A `lease()` after {@link UNHEALTHY_IN_A_ROW} sandboxes failed the check: the spec or the check is broken. */
export function allUnhealthy(provider: string, poolId: string, last: SandportError): SandportError {
  return new SandportError({
    code: last.code,
    provider,
    retryable: false,
    message: `pool ${poolId}: ${UNHEALTHY_IN_A_ROW} sandboxes in a row failed the health check (${last.message}); each was replaced`,
    cause: last,
    details: { poolId, operation: "lease" },
  });
}

/** A `lease()` that no sandbox became ready for in time. */
export function leaseDeadline(
  provider: string,
  poolId: string,
  timeoutMs: number,
  stats: { readonly leased: number; readonly launching: number; readonly max: number },
): SandportError {
  return new SandportError({
    code: "DEADLINE_EXCEEDED",
    provider,
    retryable: true,
    message:
      `no sandbox of pool ${poolId} became ready within ${timeoutMs} ms ` +
      `(${stats.leased} leased, ${stats.launching} launching, max ${stats.max})`,
    details: { operation: "lease", timeoutMs, poolId },
  });
}

/** A call on a pool that is closed (or closing). */
export function poolClosed(poolId: string): SandportError {
  return invalidRequest(`pool ${poolId} is closed`, { poolId });
}
