import { invalidRequest, type LaunchSpec, type OpOptions, SandportError, unsupported } from "@sandport/core";
import { launchWithReclaim, metadataCodec } from "@sandport/core/adapter";
import { e2bCapabilities } from "./capabilities.js";
import type { E2BContext } from "./context.js";
import { type E2BHandle, PROVIDER } from "./handle.js";
import { deleteSandbox } from "./lifecycle.js";
import { findByLaunchKey } from "./lookup.js";
import { e2bEgress } from "./network-plan.js";
import { checkExposablePort } from "./ports.js";
import { ownedSnapshotId } from "./snapshots.js";

/**
 * Creates a sandbox carrying the ownership marker, the launch key and the
 * caller's labels as E2B metadata, with an explicit lifetime, env, network
 * and public-traffic setting. The create is the launch's only request (with
 * `sandboxUrl` given; without it, a connect learns the sandbox's envd address):
 * the workspace is made by its first use, within that call's own request (a
 * command run in it, the symlink check of a file call, a file written there). An allow
 * list is sent as E2B's egress rules (`e2bEgress`), and entries E2B cannot
 * express are refused before any request.
 * `LaunchSpec.ports` is validated (E2B's envd port 49983 is refused) and
 * otherwise unused: E2B serves every port without a declaration. With
 * `from`, the snapshot (one of ours, else `NOT_FOUND` before any request) is
 * the template; E2B answers 404 for one that no longer exists.
 *
 * The create request is not cancelled when the caller's signal or deadline
 * fires (the call still rejects at once): it runs on, and whatever it produces
 * is destroyed in the background (`launchWithReclaim`; `settle()` waits
 * for it). Other failures after the sandbox exists destroy it too. A create
 * that fails with an unknown outcome (lost response, 5xx, cut by its
 * deadline) is searched for by launch key in the background, with backoff,
 * until E2B's listing can be trusted, and what it made is destroyed.
 */
export function launch(context: E2BContext, spec?: LaunchSpec, op?: OpOptions): Promise<E2BHandle> {
  const { options } = context;
  return launchWithReclaim(context, spec, op, {
    networkPolicy: e2bCapabilities.modes.networkPolicy,
    restoresSnapshots: true,
    plan: (valid) => {
      if (valid.resources !== undefined) {
        throw unsupported(PROVIDER, "resource limits", "E2B takes CPU and memory from the template");
      }
      // E2B needs no declaration (every port is reachable); only its own envd port is refused.
      for (const port of valid.ports ?? []) checkExposablePort(port, "ports");
      if (valid.from !== undefined && valid.template !== undefined) {
        throw invalidRequest(
          "from and template exclude each other: an E2B snapshot is a template",
          { field: "from" },
          PROVIDER,
        );
      }
      const from = valid.from === undefined ? undefined : ownedSnapshotId(context, valid.from);
      return {
        egress: e2bEgress(valid.network, options.network),
        template: from ?? valid.template ?? options.template,
      };
    },
    load: () => context.sdk(),
    create: (sdk, { spec: valid, launchKey, plan: { egress, template } }, call) =>
      sdk.Sandbox.create(template, {
        ...context.fields({ remainingMs: call.remainingMs }),
        metadata: { ...metadataCodec.encode(options.owner, valid.labels, launchKey) },
        envs: { ...valid.env },
        timeoutMs: valid.lifetimeMs ?? options.lifetimeMs,
        allowInternetAccess: egress.allowInternetAccess,
        lifecycle: { onTimeout: "kill" },
        network: {
          allowPublicTraffic: options.allowPublicTraffic,
          ...(egress.allowOut === undefined ? {} : { allowOut: [...egress.allowOut] }),
          ...(egress.denyOut === undefined ? {} : { denyOut: [...egress.denyOut] }),
        },
      }),
    idOf: (sandbox) => sandbox.sandboxId,
    setup: async (created, { labels }, call) => {
      let sandbox = created;
      // Destroyed in the background like any launch that fails after the create.
      if (!options.allowPublicTraffic && !sandbox.trafficAccessToken) throw publicDespiteRequest(sandbox.sandboxId);
      if (options.sandboxUrl === undefined) {
        // Per-sandbox envd address: reconnect with it spelled out, so no E2B_SANDBOX_URL can apply.
        sandbox = await context.connect(sandbox.sandboxId, "launch", call);
      }
      context.remember(sandbox.sandboxId, sandbox);
      // No `resources`: the create's answer says nothing of sizes (E2B's `Sandbox`), and a launch does not pay a
      // request to learn them; getById and findByLabels, which read E2B's sandbox info, carry them.
      return { id: sandbox.sandboxId, provider: PROVIDER, labels };
    },
    destroy: (sandboxId, budget) => deleteSandbox(context, sandboxId, budget),
    findByLaunchKey: (key, budget) => findByLaunchKey(context, key, budget),
  });
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
