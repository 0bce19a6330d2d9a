import {
  invalidRequest,
  type LaunchSpec,
  type OpOptions,
  type ResourceLimits,
  SandportError,
  unsupported,
} from "@sandport/core";
import { createCallBudget, launchFailure, launchWithReclaim } from "@sandport/core/adapter";
import { vercelCapabilities } from "./capabilities.js";
import type { VercelContext } from "./context.js";
import { isAlreadyExists, mapVercelError } from "./errors.js";
import { PROVIDER, type VercelHandle, withGranted } from "./handle.js";
import { deleteSandbox } from "./lifecycle.js";
import { findByLaunchKey } from "./lookup.js";
import { vercelNetworkPolicy } from "./network-plan.js";
import { isVercelVcpuCount } from "./options.js";
import { MAX_LABELS, MAX_NAME_LENGTH } from "./ownership.js";

/** Most ports a sandbox may declare. */
export const MAX_PORTS = 15;
/** Memory Vercel gives each vCPU, in MiB. */
const MEMORY_PER_VCPU_MIB = 2048;

/**
 * Creates a sandbox named `<namePrefix><launch key>`, tagged with the caller's
 * labels and `sandport.owner`, with an explicit lifetime, vCPUs, network
 * policy (an allow list as Vercel's user-defined policy, see `network-plan.ts`),
 * env, declared ports and persistence. The create is the launch's only
 * request: the workspace is made by its first use, within that call's own
 * request (a command run in it, the symlink check of a file call, a file
 * written there). Everything Vercel would refuse for a known reason (too many
 * labels or ports, a name too long, resources it cannot give) is refused
 * before any request.
 *
 * The create is not cancelled when the caller's signal fires (the call still
 * rejects at once): it runs on until the launch deadline, and whatever it
 * produces is destroyed in the background (`settle()` waits for it). Other
 * failures after the sandbox exists destroy it too. A create whose outcome
 * is unknown (lost connection, 5xx, or the name already taken, which only
 * that create can have done) rejects saying so, with the launch key to search.
 */
export function launch(context: VercelContext, spec?: LaunchSpec, op?: OpOptions): Promise<VercelHandle> {
  const { options, ownership } = context;
  return launchWithReclaim(context, spec, op, {
    networkPolicy: vercelCapabilities.modes.networkPolicy,
    plan: (valid, launchKey) => {
      const { name, tags } = ownership.encode(options.owner, valid.labels, launchKey);
      if (name.length > MAX_NAME_LENGTH) {
        throw invalidRequest(
          `launchKey makes the sandbox name ${name.length} characters long; the most is ${MAX_NAME_LENGTH}`,
          { field: "launchKey" },
          PROVIDER,
        );
      }
      if (Object.keys(valid.labels ?? {}).length > MAX_LABELS) {
        throw invalidRequest(
          `Vercel keeps 5 tags per sandbox and one holds the ownership marker: at most ${MAX_LABELS} labels`,
          { field: "labels" },
          PROVIDER,
        );
      }
      const ports = [...(valid.ports ?? [])];
      if (ports.length > MAX_PORTS) {
        throw invalidRequest(`Vercel exposes at most ${MAX_PORTS} ports per sandbox`, { field: "ports" }, PROVIDER);
      }
      const networkPolicy = vercelNetworkPolicy(valid.network, options.network);
      return { name, tags, ports, vcpus: vcpusFor(valid.resources, options.vcpus), networkPolicy };
    },
    load: async () => {
      const sdk = await context.sdk();
      if (options.region !== undefined && sdk.DEFAULT_SANDBOX_REGION === undefined) {
        throw unsupported(PROVIDER, "region", "this @vercel/sandbox version does not send one (3.5 does)");
      }
      return sdk;
    },
    create: (sdk, { spec: valid, plan }, call) =>
      sdk.Sandbox.create({
        // Not the caller's signal: a create already sent is left to finish (or to reach the deadline), then reclaimed.
        ...context.connection(createCallBudget(call.remainingMs())),
        name: plan.name,
        ...((valid.template ?? options.image) ? { image: valid.template ?? options.image } : {}),
        ports: plan.ports,
        timeout: valid.lifetimeMs ?? options.lifetimeMs,
        resources: { vcpus: plan.vcpus },
        env: { ...valid.env },
        tags: { ...plan.tags },
        networkPolicy: plan.networkPolicy,
        persistent: true,
        ...(options.region === undefined ? {} : { region: options.region }),
      }),
    idOf: (sandbox) => sandbox.name,
    setup: async (sandbox, { plan: { name }, labels }) => {
      context.remember(name, sandbox);
      if (options.region !== undefined && sandbox.region !== options.region) {
        throw unsupported(PROVIDER, "region", `asked for ${options.region}, Vercel created it in ${sandbox.region}`);
      }
      return withGranted({ id: name, provider: PROVIDER, labels, createdAt: sandbox.createdAt.toISOString() }, sandbox);
    },
    createFailure: launchError,
    destroy: (name, budget) => deleteSandbox(context, name, budget),
    findByLaunchKey: (key, budget) => findByLaunchKey(context, key, budget),
  });
}

/**
 * vCPUs for a launch's resource limits: `cpus` must be a count Vercel
 * gives (1, 2, 4, 6 or 8: its create reference takes 1 or an even number, at
 * most 8) and `memoryMiB` the 2048 MiB per vCPU that comes with them; Vercel
 * has no process limit and takes no disk size. Anything else is `UNSUPPORTED`.
 */
function vcpusFor(resources: ResourceLimits | undefined, fallback: number): number {
  if (resources === undefined) return fallback;
  if (resources.maxProcesses !== undefined) {
    throw unsupported(PROVIDER, "resources.maxProcesses", "Vercel has no process limit");
  }
  if (resources.diskMiB !== undefined) {
    throw unsupported(PROVIDER, "resources.diskMiB", "a Vercel sandbox's create takes no disk size");
  }
  const fromMemory = resources.memoryMiB === undefined ? undefined : resources.memoryMiB / MEMORY_PER_VCPU_MIB;
  const vcpus = resources.cpus ?? fromMemory ?? fallback;
  if (!isVercelVcpuCount(vcpus)) {
    throw unsupported(PROVIDER, "resources", "Vercel gives 1, 2, 4, 6 or 8 vCPUs with 2048 MiB of memory each");
  }
  if (fromMemory !== undefined && fromMemory !== vcpus) {
    throw unsupported(
      PROVIDER,
      "resources.memoryMiB",
      `Vercel gives ${vcpus * MEMORY_PER_VCPU_MIB} MiB with ${vcpus} vCPUs`,
    );
  }
  return vcpus;
}

/**
 * A failed create, saying whether the sandbox may exist anyway and under
 * which launch key to look. A name already taken can only be this create's
 * own earlier attempt, so it counts as unknown too; an unknown outcome is
 * retryable (safe to launch again once the launch key has been searched,
 * which the orchestrator does first).
 */
function launchError(error: unknown, launchKey: string): SandportError {
  const mapped = mapVercelError(error, { operation: "launch" });
  const taken = isAlreadyExists(error);
  const outcomeUnknown = taken || mapVercelError.outcomeUnknown(error);
  const worded = outcomeUnknown
    ? new SandportError({
        code: taken ? "PROVIDER_UNAVAILABLE" : mapped.code,
        provider: PROVIDER,
        retryable: true,
        cause: error,
        message: mapped.message,
        details: mapped.details,
      })
    : mapped;
  return launchFailure(error, worded, launchKey, { outcomeUnknown });
}
