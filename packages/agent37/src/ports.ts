import { invalidRequest, type OpOptions, type PortEndpoint, validatePort } from "@sandport/core";
import { absentAs } from "@sandport/core/adapter";
import type { Agent37Context } from "./context.js";
import { isNotFound } from "./errors.js";
import { PROVIDER } from "./handle.js";
import type { Agent37Instance } from "./internal/sdk-types.js";

/**
 * The create's `public_ports` for the ports a launch declares: each is
 * exposed at a permanent, unauthenticated URL of its own (Agent37's only way
 * to reach a server the caller starts). `undefined` when none is declared.
 */
export function publicPorts(ports: readonly number[] | undefined): { port: number }[] | undefined {
  if (ports === undefined || ports.length === 0) return undefined;
  return ports.map((port) => ({ port: validatePort(port, PROVIDER) }));
}

/**
 * Where to reach `port` of an instance, from its instance object (one `GET`;
 * URLs are read, never built from the id):
 *
 * - a port declared at launch (`public_ports`): its URL, with no header —
 *   it is unauthenticated, and the key is not sent to the caller's own server;
 * - a port of the template (`ports`, e.g. 3737 on `agent37-hermes`, the
 *   instance URL itself): its URL, with the key in the `instanceAuth` header
 *   (never in the URL).
 *
 * Any other port cannot be reached: `INVALID_REQUEST` naming the ones that can.
 */
export function portEndpoint(
  context: Agent37Context,
  handle: unknown,
  port: number,
  op?: OpOptions,
): Promise<PortEndpoint> {
  const checked = validatePort(port, PROVIDER);
  return context.onOwned(handle, op, "portEndpoint", context.options.timeouts.lookupMs, async (instanceId, call) => {
    const instance = context.note(
      await context.client
        .getInstance(instanceId, call)
        .catch(absentAs(PROVIDER, isNotFound, instanceId, "portEndpoint")),
    );
    const published = instance.public_ports?.find((entry) => entry.port === checked && entry.url);
    if (published?.url) return { url: published.url.replace(/\/+$/, "") };
    const templated = instance.ports?.find((entry) => entry.port === checked && entry.url);
    if (templated?.url) {
      return { url: templated.url.replace(/\/+$/, ""), headers: Object.freeze(context.client.instanceHeaders()) };
    }
    throw invalidRequest(
      `port ${checked} of agent37 instance ${instanceId} has no URL: reachable are ${reachable(instance) || "none"} (declare a port in LaunchSpec.ports to expose it)`,
      { field: "port", port: checked },
      PROVIDER,
    );
  });
}

function reachable(instance: Agent37Instance): string {
  const ports = [...(instance.public_ports ?? []), ...(instance.ports ?? [])].filter((entry) => entry.url);
  return ports.map((entry) => entry.port).join(", ");
}
