import { randomUUID } from "node:crypto";
import {
  LAUNCH_KEY_LABEL,
  type LaunchSpec,
  type OpOptions,
  refuseReservedEnv,
  SandportError,
  sleep,
  unsupported,
  validateLaunchSpec,
  withDeadline,
} from "@sandport/core";
import { isConnectionLost, mapE2BError, statusOf } from "./errors.js";
import type { RuntimeContext } from "./internal/context.js";
import type { E2BSandbox } from "./internal/sdk-types.js";
import { RESERVED_ENV } from "./markers.js";
import { PROVIDER, sandboxUrlFor } from "./options.js";
import { type E2BHandle, isOwned, launchMetadata } from "./ownership.js";

/** Waits before each search for a sandbox that an abandoned create may still produce. */
const ORPHAN_SEARCH_DELAYS_MS = [0, 1_000, 3_000];

/**
 * Creates a sandbox carrying the ownership marker, the launch key and the
 * caller's labels as E2B metadata, with an explicit lifetime, env and network
 * setting; then creates the workspace directory.
 *
 * The create request is not cancelled when the caller's signal or deadline
 * fires (the call still rejects at once): it runs on, bounded by the launch
 * deadline, and whatever it produces is destroyed in the background. Other
 * failures after the sandbox exists destroy it too. A create that fails with
 * an unknown outcome (lost response, 5xx) is left to the caller to reconcile
 * by launch key, as the orchestrator does.
 */
export async function launchSandbox(context: RuntimeContext, spec: LaunchSpec, op?: OpOptions): Promise<E2BHandle> {
  const valid = validateLaunchSpec(spec, PROVIDER);
  refuseReservedEnv(valid.env, RESERVED_ENV, "env", PROVIDER);
  if (valid.resources !== undefined) {
    throw unsupported(PROVIDER, "resource limits", "E2B takes CPU and memory from the template");
  }
  const { options } = context;
  const requestTimeoutMs = op?.timeoutMs ?? options.timeouts.launchMs;
  const launchKey = valid.launchKey ?? randomUUID();
  const template = valid.template ?? options.template;
  let creation: Promise<E2BSandbox> | undefined;
  let created = false;
  try {
    return await withDeadline(
      op,
      { provider: PROVIDER, operation: "launch", defaultTimeoutMs: options.timeouts.launchMs },
      async (signal) => {
        const sdk = await context.sdk();
        creation = sdk.Sandbox.create(template, {
          ...context.fields({ requestTimeoutMs }),
          metadata: launchMetadata(options.owner, valid.labels, launchKey),
          envs: { ...valid.env },
          timeoutMs: valid.lifetimeMs ?? options.lifetimeMs,
          allowInternetAccess: valid.network ?? options.network,
          lifecycle: { onTimeout: "kill" },
        });
        let sandbox: E2BSandbox;
        try {
          sandbox = await creation;
        } catch (error) {
          throw launchError(error, launchKey);
        }
        created = true;
        context.markOwned(sandbox.sandboxId);
        if (options.sandboxUrl === undefined) {
          // Per-sandbox envd address: reconnect with it spelled out, so no E2B_SANDBOX_URL can apply.
          sandbox = await sdk.Sandbox.connect(sandbox.sandboxId, {
            ...context.fields({ requestTimeoutMs, signal }, sandboxUrlFor(options, sandbox.sandboxId)),
            timeoutMs: valid.lifetimeMs ?? options.lifetimeMs,
          });
        }
        await sandbox.files.makeDir(options.workspaceRoot, { requestTimeoutMs, signal });
        context.remember(sandbox);
        context.markPristine(sandbox.sandboxId);
        return {
          id: sandbox.sandboxId,
          provider: PROVIDER,
          labels: Object.freeze({ ...valid.labels }),
        } satisfies E2BHandle;
      },
    );
  } catch (raw) {
    const error = mapE2BError(raw, { operation: "launch" });
    if (creation) reclaim(context, creation, launchKey, error, created);
    throw error;
  }
}

/**
 * After a failed launch whose create request was sent: destroy the sandbox it
 * produced, if any. A create that itself failed is only chased when the
 * caller stopped waiting (abort or deadline); otherwise the caller got the
 * error and reconciles by launch key.
 */
function reclaim(
  context: RuntimeContext,
  creation: Promise<E2BSandbox>,
  launchKey: string,
  error: SandportError,
  created: boolean,
) {
  const callerGaveUp = error.code === "ABORTED" || error.code === "DEADLINE_EXCEEDED";
  // Hidden from findByLabels from now on, so a reconciling caller cannot adopt what is being destroyed.
  if (callerGaveUp || created) context.condemnedLaunchKeys.add(launchKey);
  context.track(async () => {
    let sandboxId: string | undefined;
    try {
      sandboxId = (await creation).sandboxId;
    } catch (createError) {
      if (!callerGaveUp || !outcomeUnknown(createError)) {
        context.condemnedLaunchKeys.delete(launchKey);
        return;
      }
    }
    if (sandboxId !== undefined) {
      await killSandbox(context, sandboxId);
      return;
    }
    await destroyByLaunchKey(context, launchKey);
  });
}

/**
 * Searches for the sandbox an abandoned create produced and destroys it.
 * Searches up to three times, since the create may still be in flight.
 */
async function destroyByLaunchKey(context: RuntimeContext, launchKey: string): Promise<void> {
  const { options } = context;
  const sdk = await context.sdk();
  const deadline = Date.now() + options.timeouts.orphanCleanupMs;
  for (const delay of ORPHAN_SEARCH_DELAYS_MS) {
    await sleep(delay);
    if (Date.now() >= deadline) break;
    const paginator = sdk.Sandbox.list({
      ...context.fields({ requestTimeoutMs: options.timeouts.lookupMs }),
      query: { metadata: { [LAUNCH_KEY_LABEL]: launchKey }, state: ["running", "paused"] },
      limit: options.listPageSize,
    });
    while (paginator.hasNext) {
      const page = await paginator.nextItems(context.fields({ requestTimeoutMs: options.timeouts.lookupMs }));
      const found = page.filter(
        (info) => info.metadata[LAUNCH_KEY_LABEL] === launchKey && isOwned(info.metadata, options.owner),
      );
      for (const info of found) await killSandbox(context, info.sandboxId);
      if (found.length > 0) return;
    }
  }
}

async function killSandbox(context: RuntimeContext, sandboxId: string): Promise<void> {
  const sdk = await context.sdk();
  await sdk.Sandbox.kill(sandboxId, context.fields({ requestTimeoutMs: context.options.timeouts.destroyMs }));
  context.forget(sandboxId);
}

function launchError(error: unknown, launchKey: string): SandportError {
  const mapped = mapE2BError(error, { operation: "launch" });
  const unknown = outcomeUnknown(error);
  return new SandportError({
    code: mapped.code,
    provider: PROVIDER,
    retryable: mapped.retryable,
    cause: error,
    message: unknown
      ? `${mapped.message} (the sandbox may exist anyway: search launch key ${launchKey})`
      : mapped.message,
    details: { ...mapped.details, launchKey, outcomeUnknown: unknown },
  });
}

/** True when a failed create may still have created a sandbox. */
function outcomeUnknown(error: unknown): boolean {
  const status = statusOf(error);
  if (status !== undefined) return status >= 500 && status !== 503;
  if (isConnectionLost(error)) return true;
  const mapped = mapE2BError(error, { operation: "launch" });
  return mapped.code === "DEADLINE_EXCEEDED" || mapped.code === "UNEXPECTED" || mapped.code === "PROVIDER_UNAVAILABLE";
}
