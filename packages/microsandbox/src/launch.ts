import { randomUUID } from "node:crypto";
import {
  type LaunchSpec,
  type OpOptions,
  RESERVED_ENV,
  refuseReservedEnv,
  type SandportError,
  unsupported,
  validateLaunchSpec,
} from "@sandport/core";
import { createCallBudget, launchFailure, metadataCodec } from "@sandport/core/adapter";
import type { MicrosandboxContext } from "./context.js";
import { mapMicrosandboxError } from "./errors.js";
import { type MicrosandboxHandle, PROVIDER } from "./handle.js";
import type { MsbSandbox, MsbSandboxBuilder } from "./internal/sdk-types.js";
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
  readonly launchKey: string;
  readonly env: Readonly<Record<string, string>>;
  /** The caller's labels, as the handle reports them. */
  readonly labels: Readonly<Record<string, string>>;
  readonly configure: (builder: MsbSandboxBuilder) => MsbSandboxBuilder;
}

/**
 * Creates a sandbox under a fresh name, carrying the ownership marker, the
 * launch key and the caller's labels as microsandbox labels, with explicit
 * image (or snapshot), resources, environment, working directory, network and
 * lifetime (`maxDuration`, and `idleTimeout` when configured); then creates
 * the workspace directory. The create resolves once the sandbox runs.
 *
 * The SDK cannot cancel a create: when the caller's signal or deadline fires,
 * the call rejects at once, and whatever the create produces is destroyed in
 * the background (`context.reclaimLaunch`; `settle()` waits for it). Other
 * failures after the sandbox exists destroy it too. A create that fails with
 * an unknown outcome (a dropped connection, a 5xx) is searched for by launch
 * key in the background, with backoff, until the listing can be trusted, and
 * what it made is destroyed.
 */
export function launch(
  context: MicrosandboxContext,
  spec: LaunchSpec = {},
  op?: OpOptions,
): Promise<MicrosandboxHandle> {
  const { options } = context;
  let abandoned: ((error: SandportError) => void) | undefined;
  const launching = context.run(op, { operation: "launch" }, options.timeouts.launchMs, async (call) => {
    const plan = planLaunch(options, spec);
    await context.sdk();
    // A caller that gave up while the SDK loaded sends nothing.
    if (call.signal.aborted) throw call.signal.reason;
    // Without the caller's signal once sent: a create cannot be taken back, so it is left to finish, then reclaimed.
    const creation = context.entry((statics) => plan.configure(statics.builder(plan.name)).create(), call.signal);
    let created = false;
    abandoned = (error) => reclaim(context, creation, plan, error, created);
    const sandbox = await creation.catch((error: unknown) => {
      throw launchError(error, plan.launchKey);
    });
    created = true;
    context.remember(plan.name, sandbox, plan.env);
    await sandbox.fs().mkdir(options.workspaceRoot);
    context.known.markPristine(plan.name);
    return { id: plan.name, provider: PROVIDER, labels: plan.labels } satisfies MicrosandboxHandle;
  });
  return launching.catch((error: SandportError) => {
    abandoned?.(error);
    throw error;
  });
}

/** Validates a launch spec against the options and plans the builder calls. Throws `INVALID_REQUEST` / `UNSUPPORTED`. */
export function planLaunch(options: ResolvedOptions, spec: LaunchSpec): LaunchPlan {
  const valid = validateLaunchSpec(spec, PROVIDER);
  refuseReservedEnv(valid.env, RESERVED_ENV, "env", PROVIDER);
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
  if (resources.cpus !== undefined && !Number.isInteger(resources.cpus)) {
    throw unsupported(PROVIDER, "fractional resources.cpus", "microsandbox gives whole virtual CPUs");
  }
  const vcpus = resources.cpus ?? options.vcpus;
  const memoryMiB = resources.memoryMiB === undefined ? options.memoryMiB : Math.ceil(resources.memoryMiB);
  if (vcpus > MAX_VCPUS || memoryMiB > MAX_MEMORY_MIB) {
    throw unsupported(
      PROVIDER,
      "resources",
      `microsandbox gives at most ${MAX_VCPUS} vCPUs and ${MAX_MEMORY_MIB} MiB of memory (a u8 and a u32 on its wire)`,
    );
  }
  const launchKey = valid.launchKey ?? randomUUID();
  const env = Object.freeze({ ...valid.env });
  const labels = { ...metadataCodec.encode(options.owner, valid.labels, launchKey) };
  const maxDurationSeconds = Math.ceil((valid.lifetimeMs ?? options.maxDurationMs) / 1000);
  const network = valid.network ?? options.network;
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
  const callerLabels = Object.freeze({ ...valid.labels });
  return { name: `sandport-${randomUUID()}`, launchKey, env, labels: callerLabels, configure };
}

/** After a failed launch whose create was sent: whatever it produced is destroyed in the background. */
function reclaim(
  context: MicrosandboxContext,
  creation: Promise<MsbSandbox>,
  plan: LaunchPlan,
  error: SandportError,
  created: boolean,
): void {
  const { timeouts, orphanCleanupMs } = context.options;
  context.reclaimLaunch(
    { creation, idOf: () => plan.name, launchKey: plan.launchKey, error, created },
    {
      destroy: async (name) => {
        await deleteSandbox(context, name, "background cleanup", createCallBudget(timeouts.destroyMs));
        context.forget(name);
      },
      findByLaunchKey: (key) => findByLaunchKey(context, key, createCallBudget(timeouts.lookupMs)),
      cleanupMs: orphanCleanupMs,
    },
  );
}

/** A failed create, saying whether the sandbox may exist anyway and under which launch key to look. */
function launchError(error: unknown, launchKey: string): SandportError {
  return launchFailure(error, mapMicrosandboxError(error, { operation: "launch" }), launchKey, {
    outcomeUnknown: mapMicrosandboxError.outcomeUnknown(error),
  });
}
