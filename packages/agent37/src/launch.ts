import {
  invalidRequest,
  type LaunchSpec,
  type OpOptions,
  quoteShellArg,
  SandportError,
  unsupported,
} from "@sandport/core";
import { createCallBudget, launchWithReclaim, metadataCodec, type OperationCall } from "@sandport/core/adapter";
import { agent37Capabilities } from "./capabilities.js";
import type { Agent37Context } from "./context.js";
import { type Agent37Handle, PROVIDER } from "./handle.js";
import type { Agent37CreateRequest } from "./internal/sdk-types.js";
import { deleteInstance } from "./lifecycle.js";
import { findByLaunchKey } from "./lookup.js";
import { fromHome, type ResolvedOptions } from "./options.js";
import { publicPorts } from "./ports.js";
import { runScript } from "./run-script.js";

/** Agent37's create limits on `env` (as other clients enforce them). */
const MAX_ENV_ENTRIES = 32;
const MAX_ENV_VALUE = 4096;
const ENV_NAME = /^[A-Za-z][A-Za-z0-9_]*$/;

/**
 * Creates an instance carrying the owner, the launch key and the caller's
 * labels as `metadata` (Agent37 stores it and never reads it), the launch
 * env as the create's `env`, the declared ports as `public_ports`, then creates the workspace and state
 * directories with one exec.
 *
 * Agent37's create has no idempotency key and answers only once the
 * instance runs. It is sent without the caller's signal: a launch the caller
 * gives up on leaves it running, and whatever it makes is destroyed in the
 * background (`launchWithReclaim`; `settle()` waits). A create whose outcome
 * is unknown (a lost answer, a 5xx) is searched for by its launch key in the
 * owner's metadata over the whole instance list, and destroyed.
 */
export function launch(context: Agent37Context, spec?: LaunchSpec, op?: OpOptions): Promise<Agent37Handle> {
  const { options } = context;
  return launchWithReclaim(context, spec, op, {
    networkPolicy: agent37Capabilities.modes.networkPolicy,
    plan: (valid, launchKey): Agent37CreateRequest => {
      if (valid.resources !== undefined) {
        throw unsupported(
          PROVIDER,
          "resource limits",
          "an instance's shape is one of Agent37's fixed sizes, not limits",
        );
      }
      if (valid.network === "none") {
        throw unsupported(PROVIDER, 'network: "none"', "Agent37 instances have open egress");
      }
      if (valid.lifetimeMs !== undefined) {
        throw unsupported(PROVIDER, "lifetimeMs", "an Agent37 instance lives until it is deleted");
      }
      const exposed = publicPorts(valid.ports);
      return {
        template: valid.template ?? options.template,
        ...(exposed ? { public_ports: exposed } : {}),
        metadata: metadataCodec.encode(options.owner, valid.labels, launchKey),
        ...(valid.env ? { env: checkedEnv(valid.env) } : {}),
      };
    },
    load: async () => context.client,
    // Not bound to the caller: a create already sent is followed to its end, for as long as the cleanup may take.
    create: (client, { plan }) => client.createInstance(plan, createCallBudget(options.orphanCleanupMs)),
    idOf: (instance) => instance.id,
    setup: async (instance, { labels }, call) => {
      context.note(instance);
      await setupDirectories(context, instance.id, call);
      return { id: instance.id, provider: PROVIDER, labels };
    },
    destroy: (instanceId, budget) => deleteInstance(context, instanceId, budget),
    findByLaunchKey: (key, budget) => findByLaunchKey(context, key, budget),
  });
}

/** The launch env, refused (`INVALID_REQUEST`, before any request) where Agent37 would refuse it. */
function checkedEnv(env: Readonly<Record<string, string>>): Record<string, string> {
  const entries = Object.entries(env);
  if (entries.length > MAX_ENV_ENTRIES) {
    throw invalidRequest(`Agent37 takes at most ${MAX_ENV_ENTRIES} launch env variables`, { field: "env" }, PROVIDER);
  }
  for (const [name, value] of entries) {
    if (!ENV_NAME.test(name) || value.length > MAX_ENV_VALUE) {
      throw invalidRequest(
        `launch env ${name}: Agent37 takes names of letters, digits and _ starting with a letter, values of at most ${MAX_ENV_VALUE} characters`,
        { field: "env", key: name },
        PROVIDER,
      );
    }
  }
  return { ...env };
}

/** The shell text that makes the workspace and the state directory, from `$HOME`. */
export function setupCommand(options: ResolvedOptions): string {
  const workspace = quoteShellArg(fromHome(options, options.workspaceRoot));
  const state = quoteShellArg(fromHome(options, options.stateDirectory));
  return `mkdir -p -- ${workspace} ${state}`;
}

async function setupDirectories(context: Agent37Context, instanceId: string, call: OperationCall): Promise<void> {
  const result = await runScript(context, instanceId, setupCommand(context.options), call);
  if (result.exitCode === 0) return;
  throw new SandportError({
    code: "UNEXPECTED",
    provider: PROVIDER,
    retryable: false,
    message: `agent37 instance ${instanceId} could not be set up (workspace): ${result.stderr.trim() || `exit ${result.exitCode}`}`,
    details: { sandboxId: instanceId, exitCode: result.exitCode },
  });
}
