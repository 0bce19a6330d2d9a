import { randomUUID } from "node:crypto";
import {
  type LaunchSpec,
  type OpOptions,
  RESERVED_ENV,
  refuseReservedEnv,
  SandportError,
  unsupported,
  validateLaunchSpec,
} from "@sandport/core";
import { createCallBudget, launchFailure, metadataCodec } from "@sandport/core/adapter";
import type { E2BContext } from "./context.js";
import { mapE2BError } from "./errors.js";
import { type E2BHandle, PROVIDER } from "./handle.js";
import type { E2BSandbox } from "./internal/sdk-types.js";
import { deleteSandbox } from "./lifecycle.js";
import { findByLaunchKey } from "./lookup.js";
import { checkExposablePort } from "./ports.js";

/**
 * Creates a sandbox carrying the ownership marker, the launch key and the
 * caller's labels as E2B metadata, with an explicit lifetime, env, network
 * and public-traffic setting; then creates the workspace directory.
 * `LaunchSpec.ports` is validated (E2B's envd port 49983 is refused) and
 * otherwise unused: E2B serves every port without a declaration.
 *
 * The create request is not cancelled when the caller's signal or deadline
 * fires (the call still rejects at once): it runs on, and whatever it produces
 * is destroyed in the background (`context.reclaimLaunch`; `settle()` waits
 * for it). Other failures after the sandbox exists destroy it too. A create
 * that fails with an unknown outcome (lost response, 5xx, cut by its
 * deadline) is searched for by launch key in the background, with backoff,
 * until E2B's listing can be trusted, and what it made is destroyed.
 */
export function launch(context: E2BContext, spec: LaunchSpec = {}, op?: OpOptions): Promise<E2BHandle> {
  const { options } = context;
  let abandoned: ((error: SandportError) => void) | undefined;
  const launching = context.run(
    op,
    { operation: "launch" },
    options.timeouts.launchMs,
    async (call): Promise<E2BHandle> => {
      const valid = validateLaunchSpec(spec, PROVIDER);
      refuseReservedEnv(valid.env, RESERVED_ENV, "env", PROVIDER);
      if (valid.resources !== undefined) {
        throw unsupported(PROVIDER, "resource limits", "E2B takes CPU and memory from the template");
      }
      // E2B needs no declaration (every port is reachable); only its own envd port is refused.
      for (const port of valid.ports ?? []) checkExposablePort(port, "ports");
      const launchKey = valid.launchKey ?? randomUUID();
      const lifetimeMs = valid.lifetimeMs ?? options.lifetimeMs;
      const sdk = await context.sdk();
      // A caller that gave up while the SDK loaded sends nothing.
      if (call.signal.aborted) throw call.signal.reason;
      // Without the caller's signal: a create already sent is left to finish, then reclaimed.
      const creation = sdk.Sandbox.create(valid.template ?? options.template, {
        ...context.fields({ remainingMs: call.remainingMs }),
        metadata: { ...metadataCodec.encode(options.owner, valid.labels, launchKey) },
        envs: { ...valid.env },
        timeoutMs: lifetimeMs,
        allowInternetAccess: valid.network ?? options.network,
        lifecycle: { onTimeout: "kill" },
        network: { allowPublicTraffic: options.allowPublicTraffic },
      });
      let created = false;
      abandoned = (error) => reclaim(context, creation, launchKey, error, created);
      let sandbox: E2BSandbox = await creation.catch((error: unknown) => {
        throw launchError(error, launchKey);
      });
      created = true;
      context.known.markOwned(sandbox.sandboxId);
      // Destroyed in the background like any launch that fails after the create.
      if (!options.allowPublicTraffic && !sandbox.trafficAccessToken) throw publicDespiteRequest(sandbox.sandboxId);
      if (options.sandboxUrl === undefined) {
        // Per-sandbox envd address: reconnect with it spelled out, so no E2B_SANDBOX_URL can apply.
        sandbox = await context.connect(sandbox.sandboxId, "launch", call);
      }
      await sandbox.files.makeDir(options.workspaceRoot, { requestTimeoutMs: call.remainingMs(), signal: call.signal });
      context.remember(sandbox.sandboxId, sandbox);
      context.known.markPristine(sandbox.sandboxId);
      return { id: sandbox.sandboxId, provider: PROVIDER, labels: Object.freeze({ ...valid.labels }) };
    },
  );
  return launching.catch((error: SandportError) => {
    abandoned?.(error);
    throw error;
  });
}

/** After a failed launch whose create was sent: whatever it produced is destroyed in the background. */
function reclaim(
  context: E2BContext,
  creation: Promise<E2BSandbox>,
  launchKey: string,
  error: SandportError,
  created: boolean,
): void {
  const { timeouts, orphanCleanupMs } = context.options;
  context.reclaimLaunch(
    { creation, idOf: (sandbox) => sandbox.sandboxId, launchKey, error, created },
    {
      destroy: async (sandboxId) =>
        void (await deleteSandbox(context, sandboxId, createCallBudget(timeouts.destroyMs))),
      findByLaunchKey: (key) => findByLaunchKey(context, key, createCallBudget(timeouts.lookupMs)),
      cleanupMs: orphanCleanupMs,
    },
  );
}

/** A sandbox asked to be private came back without a traffic access token: anyone could reach its ports. */
function publicDespiteRequest(sandboxId: string): SandportError {
  return new SandportError({
    code: "UNSUPPORTED",
    provider: PROVIDER,
    retryable: false,
    message:
      `e2b created sandbox ${sandboxId} without a traffic access token although allowPublicTraffic is false, ` +
      "so its ports are public; it is being destroyed (the e2b SDK sends network.allowPublicTraffic from 2.7)",
    details: { sandboxId, feature: "allowPublicTraffic: false" },
  });
}

/** A failed create, saying whether the sandbox may exist anyway and under which launch key to look. */
function launchError(error: unknown, launchKey: string): SandportError {
  return launchFailure(error, mapE2BError(error, { operation: "launch" }), launchKey, {
    outcomeUnknown: mapE2BError.outcomeUnknown(error),
  });
}
