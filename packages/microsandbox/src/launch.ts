import { randomUUID } from "node:crypto";
import { type LaunchSpec, type OpOptions, unsupported, type ValidatedLaunchSpec } from "@sandport/core";
import { launchWithReclaim, metadataCodec, networkEnabled } from "@sandport/core/adapter";
import { microsandboxCapabilities } from "./capabilities.js";
import type { MicrosandboxContext } from "./context.js";
import { type MicrosandboxHandle, PROVIDER } from "./handle.js";
import type { MsbSandboxBuilder } from "./internal/sdk-types.js";
import { deleteSandbox } from "./lifecycle.js";
import { findByLaunchKey } from "./lookup.js";
import type { ResolvedOptions } from "./options.js";

/** Most vCPUs the cloud API takes: `resources.vcpus` is a `u8`. */
const MAX_VCPUS = 255;
/** Most memory the cloud API takes: `resources.memory_mib` is a `u32`. */
const MAX_MEMORY_MIB = 2 ** 32 - 1;
/** What a launch sends, validated. */
interface LaunchPlan {
  readonly name: string;
  readonly env: Readonly<Record<string, string>>;
  readonly configure: (builder: MsbSandboxBuilder) => MsbSandboxBuilder;
}

/**
 * Creates a sandbox under a fresh name, carrying the ownership marker, the
 * launch key and the caller's labels as microsandbox labels, with explicit
 * image (or snapshot), resources, environment, working directory, network and
 * lifetime (`maxDuration`, and `idleTimeout` when configured). The create
 * resolves once the sandbox runs, and is the launch's only request: the
 * workspace is the sandbox's working directory (`workdir`), which exists
 * once it runs (the SDK's local backend refuses a create whose workdir is
 * not a directory in the guest), so no request makes it.
 *
 * The SDK cannot cancel a create: when the caller's signal or deadline fires,
 * the call rejects at once, and whatever the create produces is destroyed in
 * the background (`launchWithReclaim`; `settle()` waits for it). Other
 * failures after the sandbox exists destroy it too. A create that fails with
 * an unknown outcome (a dropped connection, a 5xx) is searched for by launch
 * key in the background, with backoff, until the listing can be trusted, and
 * what it made is destroyed.
 */
export function launch(context: MicrosandboxContext, spec?: LaunchSpec, op?: OpOptions): Promise<MicrosandboxHandle> {
  const { options } = context;
  return launchWithReclaim(context, spec, op, {
    networkPolicy: microsandboxCapabilities.modes.networkPolicy,
    plan: (valid, launchKey) => planLaunch(options, valid, launchKey),
    load: () => context.sdk(),
    // Once sent, a create cannot be taken back (the signal only stops one still waiting for its turn).
    create: (_sdk, { plan }, call) =>
      context.entry((statics) => plan.configure(statics.builder(plan.name)).create(), call.signal),
    idOf: (_sandbox, { plan }) => plan.name,
    setup: async (sandbox, { plan, labels }) => {
      context.remember(plan.name, sandbox, plan.env);
      return { id: plan.name, provider: PROVIDER, labels } satisfies MicrosandboxHandle;
    },
    destroy: async (name, budget) => {
      await deleteSandbox(context, name, "background cleanup", budget);
      context.forget(name);
    },
    findByLaunchKey: (key, budget) => findByLaunchKey(context, key, budget),
  });
}

/** Checks a validated launch spec against the options and plans the builder calls. Throws `INVALID_REQUEST` / `UNSUPPORTED`. */
function planLaunch(options: ResolvedOptions, valid: ValidatedLaunchSpec, launchKey: string): LaunchPlan {
  if (valid.ports !== undefined && valid.ports.length > 0) {
    throw unsupported(PROVIDER, "ports", "this runtime has no portEndpoint: ports are not exposed");
  }
  const resources = valid.resources ?? {};
  if (resources.maxProcesses !== undefined) {
    throw unsupported(
      PROVIDER,
      "resources.maxProcesses",
      "microsandbox limits processes per user (rlimit), not per sandbox",
    );
  }
  if (resources.diskMiB !== undefined) {
    throw unsupported(PROVIDER, "resources.diskMiB", "this adapter does not size the microVM's root disk yet");
  }
  if (resources.cpus !== undefined && !Number.isInteger(resources.cpus)) {
    throw unsupported(PROVIDER, "fractional resources.cpus", "microsandbox gives whole virtual CPUs");
  }
  if (resources.memoryMiB !== undefined && !Number.isInteger(resources.memoryMiB)) {
    // Rounding would give the sandbox other than what was asked for, unseen.
    throw unsupported(PROVIDER, "fractional resources.memoryMiB", "microsandbox takes memory in whole MiB");
  }
  const vcpus = resources.cpus ?? options.vcpus;
  const memoryMiB = resources.memoryMiB ?? options.memoryMiB;
  if (vcpus > MAX_VCPUS || memoryMiB > MAX_MEMORY_MIB) {
    throw unsupported(
      PROVIDER,
      "resources",
      `microsandbox gives at most ${MAX_VCPUS} vCPUs and ${MAX_MEMORY_MIB} MiB of memory (a u8 and a u32 on its wire)`,
    );
  }
  const env = Object.freeze({ ...valid.env });
  const labels = { ...metadataCodec.encode(options.owner, valid.labels, launchKey) };
  const maxDurationSeconds = Math.ceil((valid.lifetimeMs ?? options.maxDurationMs) / 1000);
  const network = networkEnabled(valid.network, options.network, PROVIDER);
  const { idleTimeoutMs, snapshot, image, workspaceRoot } = options;
  const configure = (builder: MsbSandboxBuilder): MsbSandboxBuilder => {
    let next =
      valid.template === undefined && snapshot !== undefined
        ? builder.fromSnapshot(snapshot)
        : builder.image(valid.template ?? image);
    next = next
      .cpus(vcpus)
      .memory(memoryMiB)
      .workdir(workspaceRoot)
      .envs({ ...env })
      .labels(labels)
      .maxDuration(maxDurationSeconds);
    if (idleTimeoutMs !== undefined) next = next.idleTimeout(Math.ceil(idleTimeoutMs / 1000));
    return network ? next : next.disableNetwork();
  };
  // A fresh name per launch: microsandbox addresses sandboxes by name, unique per account.
  return { name: `sandport-${randomUUID()}`, env, configure };
}
