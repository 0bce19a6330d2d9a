import { invalidRequest, type OpOptions, type PortEndpoint, validatePort } from "@sandport/core";
import { type E2BContext, ENVD_PORT } from "./context.js";
import { PROVIDER } from "./handle.js";

/** The header E2B's edge requires on every request to a private sandbox's ports. */
export const TRAFFIC_TOKEN_HEADER = "e2b-traffic-access-token";

/**
 * Validates a port a caller may reach (`portEndpoint`) or declare
 * (`LaunchSpec.ports`): 1-65535, and not 49983, where E2B's own envd listens.
 * `INVALID_REQUEST` otherwise, before any request.
 */
export function checkExposablePort(port: unknown, field: string): number {
  const valid = validatePort(port, PROVIDER);
  if (valid === ENVD_PORT) {
    throw invalidRequest(
      `port ${ENVD_PORT} is E2B's own envd inside every sandbox, not a server of the caller's`,
      { field, port },
      PROVIDER,
    );
  }
  return valid;
}

/**
 * Where to reach `port` of the sandbox. E2B needs no declaration: every port
 * a server listens on is reachable, declared in `LaunchSpec.ports` or not.
 *
 * - With a `sandboxUrl` from the options (an emulator, a self-hosted edge),
 *   the endpoint is that URL with the headers `E2b-Sandbox-Id` and
 *   `E2b-Sandbox-Port`, the routing the SDK itself uses to reach envd there.
 * - Otherwise it is `https://<port>-<sandboxId>.<domain>` (`sandbox.getHost`).
 *
 * A private sandbox (`allowPublicTraffic: false`) adds its traffic access
 * token as `e2b-traffic-access-token`. No request is made for a sandbox this
 * runtime launched or used before; another costs the usual `connect`.
 */
export async function portEndpoint(
  context: E2BContext,
  handle: unknown,
  port: number,
  op?: OpOptions,
): Promise<PortEndpoint> {
  const checked = checkExposablePort(port, "port");
  const { portProxyUrl, timeouts } = context.options;
  return context.onInstance(handle, op, "portEndpoint", timeouts.lookupMs, async (sandbox, _call, sandboxId) => {
    const token = sandbox.trafficAccessToken ? { [TRAFFIC_TOKEN_HEADER]: sandbox.trafficAccessToken } : undefined;
    if (portProxyUrl !== undefined) {
      const routing = { "E2b-Sandbox-Id": sandboxId, "E2b-Sandbox-Port": String(checked) };
      return { url: portProxyUrl, headers: Object.freeze({ ...routing, ...token }) };
    }
    const url = `https://${sandbox.getHost(checked)}`;
    return token ? { url, headers: Object.freeze(token) } : { url };
  });
}
