import { invalidRequest, type LaunchSpec, type OpOptions, unsupported, type ValidatedLaunchSpec } from "@sandport/core";
import { launchWithReclaim, metadataCodec } from "@sandport/core/adapter";
import { modalCapabilities } from "./capabilities.js";
import type { ModalContext } from "./context.js";
import { type ModalHandle, PROVIDER } from "./handle.js";
import { inScope } from "./internal/call-scope.js";
import type { ModalCreateParams } from "./internal/sdk-types.js";
import { terminateSandbox } from "./lifecycle.js";
import { findByLaunchKey } from "./lookup.js";
import { networkFields } from "./network-plan.js";
import { MAX_MODAL_LIFETIME_MS, type ResolvedOptions } from "./options.js";
import { checkModalSizes, grantedLimits, limitsOf } from "./resource-limits.js";

/**
 * Creates a V2 sandbox in the configured App: the ownership tag, the launch
 * key and the caller's labels as server-side tags, an explicit lifetime
 * (whole seconds), env, `blockNetwork` or an allow list's
 * `outboundCidrAllowlist`, the workspace as its `workdir`, and
 * the declared ports as tunnels. The App and the image are resolved first
 * (once per runtime); they are safe to cancel.
 *
 * The create itself is not cancelled when the caller's signal fires (the
 * call still rejects at once), and the SDK does not repeat it: it runs on
 * under the call's deadline, and whatever it produces is destroyed in the
 * background (`launchWithReclaim`; `settle()` waits for it). A create
 * that fails with an unknown outcome (its deadline, an abort, a lost
 * connection: Modal's mapper reads the gRPC status) is searched for by
 * launch key in the background, with backoff, until Modal's listing can be
 * trusted, and what it made is terminated.
 */
export function launch(context: ModalContext, spec?: LaunchSpec, op?: OpOptions): Promise<ModalHandle> {
  const { options } = context;
  return launchWithReclaim(context, spec, op, {
    networkPolicy: modalCapabilities.modes.networkPolicy,
    plan: (valid, launchKey) => createParams(options, valid, launchKey),
    load: async ({ spec: valid }) => {
      const app = await context.app();
      const image = await context.image(valid.template ?? options.image, app);
      return { app, image, client: await context.client() };
    },
    // Without the SDK's retries: a create already sent is left to finish, then reclaimed.
    create: ({ app, image, client }, { plan }, call) =>
      inScope({ remainingMs: call.remainingMs, retries: 0 }, () => client.sandboxes.create(app, image, plan)),
    idOf: (sandbox) => sandbox.sandboxId,
    setup: async (sandbox, { spec: valid, labels, plan }) => {
      context.launched(sandbox, valid.ports ?? []);
      const resources = grantedLimits(plan);
      return { id: sandbox.sandboxId, provider: PROVIDER, labels, ...(resources === undefined ? {} : { resources }) };
    },
    destroy: (sandboxId, budget) => terminateSandbox(context, sandboxId, budget),
    findByLaunchKey: (key, budget) => findByLaunchKey(context, key, budget),
  });
}

/** The create parameters of a validated spec; refuses (before any request) what Modal cannot honour. */
function createParams(options: ResolvedOptions, spec: ValidatedLaunchSpec, launchKey: string): ModalCreateParams {
  if (spec.resources?.maxProcesses !== undefined) {
    throw unsupported(PROVIDER, "resources.maxProcesses", "Modal limits CPU and memory, not processes");
  }
  if (spec.resources?.diskMiB !== undefined) {
    throw unsupported(PROVIDER, "resources.diskMiB", "the SDK's sandbox create takes no disk size");
  }
  checkModalSizes(spec.resources);
  const lifetimeMs = spec.lifetimeMs === undefined ? options.maxLifetimeMs : Math.floor(spec.lifetimeMs / 1000) * 1000;
  if (lifetimeMs < 1000 || lifetimeMs > MAX_MODAL_LIFETIME_MS) {
    throw invalidRequest(
      "lifetimeMs must be from 1 000 to 86 400 000: Modal counts a sandbox's lifetime in whole seconds, up to 24 hours",
      { field: "lifetimeMs" },
      PROVIDER,
    );
  }
  const ports = spec.ports === undefined || spec.ports.length === 0 ? undefined : [...spec.ports];
  return {
    timeoutMs: lifetimeMs,
    ...(options.idleTimeoutMs === undefined ? {} : { idleTimeoutMs: options.idleTimeoutMs }),
    workdir: options.workspaceRoot,
    env: { ...spec.env },
    tags: { ...metadataCodec.encode(options.owner, spec.labels, launchKey) },
    ...networkFields(spec.network, options.network),
    ...limitsOf(spec.resources),
    ...(ports === undefined ? {} : options.tunnels === "tls" ? { encryptedPorts: ports } : { unencryptedPorts: ports }),
  };
}
