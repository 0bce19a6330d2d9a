import { randomBytes } from "node:crypto";
import { type LaunchSpec, type OpOptions, SandportError, unsupported } from "@sandport/core";
import { createCallBudget, launchWithReclaim, networkEnabled, type OperationCall } from "@sandport/core/adapter";
import type { KubernetesCapabilities } from "./capabilities.js";
import { type KubernetesContext, sandboxNameOf } from "./context.js";
import { hasStatus } from "./errors.js";
import { type KubernetesHandle, PROVIDER } from "./handle.js";
import { conditionOf, type SandboxClaim } from "./internal/sdk-types.js";
import { encodeLabels } from "./labels.js";
import { deleteClaimAndWait } from "./lifecycle.js";
import { findByLaunchKey } from "./lookup.js";
import { waitFor } from "./wait-for.js";

/** Claim names this adapter gives: `sandport-` and 16 hex digits (a DNS label, so a cold sandbox and its pod may share it). */
const NAME_PREFIX = "sandport-";

/**
 * Claims a sandbox: one `SandboxClaim` against the runtime's warm pool (or
 * `spec.template`, read as the pool's name), named by this adapter,
 * carrying the owner, launch key and labels (`encodeLabels`) and the
 * lifetime as `lifecycle.shutdownTime` (with `shutdownPolicy:
 * DeleteForeground`, so an expired claim goes the way `destroy` goes).
 * A ready sandbox of the pool is adopted at once; with none ready, or with
 * `env` (which agent-sandbox gives only to a sandbox made for the claim),
 * the controller starts one cold from the pool's template. `env` is taken
 * only with `launchEnv: "cold-start"`. The launch waits for the claim's
 * `Ready` condition and reads the sandbox it names and that sandbox's pod.
 * Nothing makes the workspace: sandboxd makes its root itself, and on the
 * pod-exec plane the first command or file call that needs it makes it
 * within its own exec.
 *
 * The create is sent without the caller's signal: what a launch the
 * caller gave up on made is deleted in the background (`settle()` waits),
 * and a create whose answer was lost is found again by its launch key.
 */
export function launch(
  context: KubernetesContext,
  capabilities: KubernetesCapabilities,
  spec?: LaunchSpec,
  op?: OpOptions,
): Promise<KubernetesHandle> {
  const { options } = context;
  return launchWithReclaim(context, spec, op, {
    networkPolicy: capabilities.modes.networkPolicy,
    plan: (valid, launchKey): SandboxClaim => {
      if (valid.resources !== undefined) {
        throw unsupported(
          PROVIDER,
          "resource limits",
          "a sandbox's resources are its template's (the pool's pod spec)",
        );
      }
      if (networkEnabled(valid.network, options.network, PROVIDER) !== options.network) {
        throw unsupported(
          PROVIDER,
          `network: ${JSON.stringify(valid.network)} per launch`,
          "agent-sandbox applies one NetworkPolicy per template; the runtime's network option says what the pool's template gives",
        );
      }
      const env = Object.entries(valid.env ?? {});
      if (env.length > 0 && options.launchEnv === "refuse") {
        throw unsupported(
          PROVIDER,
          "launch env",
          'agent-sandbox gives env only to a sandbox started cold for the claim; set launchEnv: "cold-start" to take that, or pass env per command',
        );
      }
      const stored = encodeLabels(options.owner, valid.labels, launchKey);
      return {
        apiVersion: "extensions.agents.x-k8s.io/v1beta1",
        kind: "SandboxClaim",
        metadata: {
          name: `${NAME_PREFIX}${randomBytes(8).toString("hex")}`,
          labels: stored.labels,
          annotations: stored.annotations,
        },
        spec: {
          warmPoolRef: { name: valid.template ?? options.warmPool },
          ...(valid.lifetimeMs === undefined
            ? {}
            : {
                lifecycle: {
                  shutdownTime: new Date(Date.now() + valid.lifetimeMs).toISOString(),
                  shutdownPolicy: "DeleteForeground" as const,
                },
              }),
          ...(env.length > 0 ? { env: env.map(([name, value]) => ({ name, value })) } : {}),
        },
      };
    },
    load: async () => context.api,
    // Not bound to the caller: a create already sent is followed to its end, for as long as the cleanup may take.
    create: (api, { plan }) => api.createClaim(plan, createCallBudget(options.orphanCleanupMs)),
    idOf: (claim) => claim.metadata.name as string,
    setup: async (claim, { labels }, call) => {
      const name = claim.metadata.name as string;
      const ready = await waitReady(context, claim, call);
      const pod = await context.podOf(name, "launch", call, ready);
      context.remember(name, pod);
      return {
        id: name,
        provider: PROVIDER,
        labels,
        ...(ready.metadata.creationTimestamp ? { createdAt: ready.metadata.creationTimestamp } : {}),
      } as KubernetesHandle;
    },
    destroy: (claimName, budget) => deleteClaimAndWait(context, claimName, budget),
    findByLaunchKey: (key, budget) => findByLaunchKey(context, key, budget),
    hint: (error) =>
      hasStatus(error, 404)
        ? `is there a SandboxWarmPool named ${options.warmPool} in namespace ${options.namespace}?`
        : undefined,
  });
}

/**
 * Waits (by watch, see `waitFor`, from the created claim's version) until the
 * claim's `Ready` condition is `True` and it names its sandbox.
 */
function waitReady(context: KubernetesContext, created: SandboxClaim, call: OperationCall): Promise<SandboxClaim> {
  const name = created.metadata.name as string;
  return waitFor(
    context,
    {
      initial: created,
      read: () =>
        context.api.getClaim(name, call).catch((error: unknown) => {
          throw context.mapError(error, { operation: "launch", sandboxId: name });
        }),
      collection: context.api.claimsPath(),
      name,
      done: (claim: SandboxClaim) => {
        const ready = conditionOf(claim, "Ready");
        if (ready?.status === "True" && sandboxNameOf(claim) !== undefined) return claim;
        if (ready?.reason !== "ClaimExpired") return undefined;
        throw new SandportError({
          code: "PROVIDER_UNAVAILABLE",
          provider: PROVIDER,
          retryable: false,
          message: `kubernetes launch: claim ${name} expired before it was ready`,
          details: { operation: "launch", sandboxId: name, reason: ready.reason },
        });
      },
    },
    call,
  );
}
