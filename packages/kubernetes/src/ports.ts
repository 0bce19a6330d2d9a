import { type OpOptions, type PortEndpoint, validatePort } from "@sandport/core";
import type { KubernetesContext } from "./context.js";
import { PROVIDER } from "./handle.js";

/**
 * Where to reach `port` of a claim's pod: the sandbox-router's URL, with
 * the pod, its namespace and the port in `X-Sandbox-ID`,
 * `X-Sandbox-Namespace` and `X-Sandbox-Port` headers (no credential in the
 * URL; the router needs none by default, and the API server's token is
 * never handed out). Any port of the pod is reachable this way, declared or
 * not. Needs `routerUrl` (`UNSUPPORTED` without it).
 */
export function portEndpoint(
  context: KubernetesContext,
  handle: unknown,
  port: number,
  op?: OpOptions,
): Promise<PortEndpoint> {
  const checked = validatePort(port, PROVIDER);
  return context.onInstance(handle, op, "portEndpoint", context.options.timeouts.lookupMs, async (pod) => {
    const sandboxd = context.requireSandboxd("portEndpoint");
    return { url: context.options.routerUrl as string, headers: Object.freeze(sandboxd.routing(pod, checked)) };
  });
}
