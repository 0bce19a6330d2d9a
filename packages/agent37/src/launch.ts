import { invalidRequest, type LaunchSpec, type OpOptions, unsupported } from "@sandport/core";
import { createCallBudget, launchWithReclaim, metadataCodec } from "@sandport/core/adapter";
import { agent37Capabilities } from "./capabilities.js";
import type { Agent37Context } from "./context.js";
import { type Agent37Handle, PROVIDER } from "./handle.js";
import type { Agent37CreateRequest } from "./internal/sdk-types.js";
import { deleteInstance } from "./lifecycle.js";
import { findByLaunchKey } from "./lookup.js";
import { publicPorts } from "./ports.js";

/** Agent37's create limits on `env` (as other clients enforce them). */
const MAX_ENV_ENTRIES = 32;
const MAX_ENV_VALUE = 4096;
const ENV_NAME = /^[A-Za-z][A-Za-z0-9_]*$/;

/**
 * Creates an instance carrying the owner, the launch key and the caller's
 * labels as `metadata` (Agent37 stores it and never reads it), the launch
 * env as the create's `env`, the declared ports as `public_ports`. The create is the launch's only
 * request: the workspace is made by its first use (a command in it, a file written there, the
 * symlink guard), within that call's own request, and the state directory by the upload that needs it.
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
    setup: async (instance, { labels }) => {
      context.note(instance);
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
