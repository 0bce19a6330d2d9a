import { type OpOptions, SandportError, sleep, withDeadline } from "@sandport/core";
import { isNotFound, mapE2BError } from "./errors.js";
import { type RuntimeContext, sandboxNotFound } from "./internal/context.js";
import { PROVIDER, sandboxUrlFor } from "./options.js";
import type { E2BHandle } from "./ownership.js";

/** Waits between checks that a killed sandbox is gone. */
const VERIFY_DELAYS_MS = [0, 250, 500, 1_000, 2_000, 4_000];
/** Time kept back from the destroy deadline so an unverified destroy reports itself, not a bare deadline. */
const VERIFY_MARGIN_MS = 250;

/**
 * Destroys a sandbox and resolves once it is verified gone: `DELETE`, then
 * `GET` until the provider reports not-found. A sandbox that is already absent
 * counts as destroyed. A sandbox this runtime has not seen is checked for our
 * ownership marker first (`FOREIGN_SANDBOX` otherwise). When absence cannot be
 * shown before the deadline, rejects `DESTROY_UNVERIFIED` (retryable).
 */
export async function destroySandbox(context: RuntimeContext, handle: E2BHandle, op?: OpOptions): Promise<void> {
  const sandboxId = sandboxIdOf(handle, "destroy");
  const timeoutMs = op?.timeoutMs ?? context.options.timeouts.destroyMs;
  const verifyUntil = Date.now() + timeoutMs - VERIFY_MARGIN_MS;
  await withDeadline(
    op,
    { provider: PROVIDER, operation: "destroy", defaultTimeoutMs: context.options.timeouts.destroyMs },
    async (signal) => {
      const timing = { requestTimeoutMs: timeoutMs, signal };
      if (!context.knownOwned(sandboxId) && !(await context.ownedInfo(sandboxId, "destroy", timing))) {
        context.forget(sandboxId);
        return;
      }
      const sdk = await context.sdk();
      let found: boolean;
      try {
        found = await sdk.Sandbox.kill(sandboxId, context.fields(timing));
      } catch (error) {
        if (isNotFound(error)) found = false;
        else throw mapE2BError(error, { operation: "destroy", sandboxId });
      }
      context.forget(sandboxId, { keepOwnership: found });
      if (!found) return;
      let lastSeen: unknown;
      for (const delay of VERIFY_DELAYS_MS) {
        if (Date.now() + delay >= verifyUntil) break;
        await sleep(delay, signal);
        try {
          lastSeen = await sdk.Sandbox.getInfo(sandboxId, context.fields(timing));
        } catch (error) {
          if (isNotFound(error)) {
            context.forget(sandboxId);
            return;
          }
          throw unverified(sandboxId, "the check for its absence failed", error);
        }
      }
      throw unverified(sandboxId, "it was still listed after the delete", lastSeen);
    },
  );
}

/** Pauses a sandbox (E2B keeps memory and filesystem); `start` resumes it. Already paused is fine. */
export async function stopSandbox(context: RuntimeContext, handle: E2BHandle, op?: OpOptions): Promise<void> {
  const sandboxId = sandboxIdOf(handle, "stop");
  const requestTimeoutMs = op?.timeoutMs ?? context.options.timeouts.lifecycleMs;
  await withDeadline(
    op,
    { provider: PROVIDER, operation: "stop", defaultTimeoutMs: context.options.timeouts.lifecycleMs },
    async (signal) => {
      const timing = { requestTimeoutMs, signal };
      await context.assertOwned(sandboxId, "stop", timing);
      const sdk = await context.sdk();
      try {
        await sdk.Sandbox.pause(sandboxId, context.fields(timing));
      } catch (error) {
        if (isNotFound(error)) throw sandboxNotFound(sandboxId, "stop", error);
        throw mapE2BError(error, { operation: "stop", sandboxId });
      }
      // The connected instance talks to a paused envd now; reconnect on next use.
      context.forget(sandboxId, { keepOwnership: true });
    },
  );
}

/** Resumes a paused sandbox (a running one is left running) with the configured lifetime from now. */
export async function startSandbox(context: RuntimeContext, handle: E2BHandle, op?: OpOptions): Promise<void> {
  const sandboxId = sandboxIdOf(handle, "start");
  const requestTimeoutMs = op?.timeoutMs ?? context.options.timeouts.lifecycleMs;
  await withDeadline(
    op,
    { provider: PROVIDER, operation: "start", defaultTimeoutMs: context.options.timeouts.lifecycleMs },
    async (signal) => {
      const timing = { requestTimeoutMs, signal };
      await context.assertOwned(sandboxId, "start", timing);
      const sdk = await context.sdk();
      try {
        const sandbox = await sdk.Sandbox.connect(sandboxId, {
          ...context.fields(timing, sandboxUrlFor(context.options, sandboxId)),
          timeoutMs: context.options.lifetimeMs,
        });
        context.remember(sandbox);
      } catch (error) {
        if (isNotFound(error)) throw sandboxNotFound(sandboxId, "start", error);
        throw mapE2BError(error, { operation: "start", sandboxId });
      }
    },
  );
}

/** The id of a handle, checked to be one of ours by shape. */
export function sandboxIdOf(handle: E2BHandle, operation: string): string {
  if (typeof handle !== "object" || handle === null || typeof handle.id !== "string" || handle.id === "") {
    throw new SandportError({
      code: "INVALID_REQUEST",
      provider: PROVIDER,
      message: `${operation} needs a sandbox handle with an id`,
    });
  }
  if (handle.provider !== PROVIDER) {
    throw new SandportError({
      code: "INVALID_REQUEST",
      provider: PROVIDER,
      message: `${operation} got a handle from provider ${JSON.stringify(handle.provider)}, not e2b`,
      details: { handleProvider: handle.provider },
    });
  }
  return handle.id;
}

function unverified(sandboxId: string, why: string, cause: unknown): SandportError {
  return new SandportError({
    code: "DESTROY_UNVERIFIED",
    provider: PROVIDER,
    retryable: true,
    cause,
    message: `e2b sandbox ${sandboxId} was deleted but could not be verified gone: ${why}`,
    details: { sandboxId },
  });
}
