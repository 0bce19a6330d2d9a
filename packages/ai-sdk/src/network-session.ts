import type { HarnessV1NetworkSandboxSession } from "@ai-sdk/harness";
import type { NetworkPolicy, SandboxHandle } from "@sandport/core";
import { mapHarnessNetworkPolicy, sameNetworkPolicy } from "./harness-network-policy.js";
import { harnessCapabilityUnsupported } from "./internal/unsupported.js";
import { sessionOf } from "./session.js";
import type { SessionContext } from "./session-context.js";

/** The infrastructure members of a harness network session that the port serves. */
type PortProtocol = "http" | "https" | "ws";

/**
 * The harness's network session over one sandbox: the AI SDK session plus
 * its id, base directory, declared ports, port endpoints (the port's
 * `portEndpoint`), `stop` (the port's `stop`), `destroy`, the restricted
 * view and `setNetworkPolicy`. The port sets a sandbox's network policy when
 * it is launched, never later: `setNetworkPolicy` resolves for the policy the
 * sandbox was launched with (`launchedWith`; nothing to change) and rejects
 * any other with `HarnessCapabilityUnsupportedError`, so a caller is never
 * told a policy holds that does not. A sandbox adopted or resumed rather than
 * launched here has no known policy: every call rejects. Request
 * transformations and `setPorts` are left out: the port has no such controls,
 * and the harness treats them as optional.
 */
export function networkSession<H extends SandboxHandle>(
  context: SessionContext<H>,
  ports: readonly number[],
  launchedWith: NetworkPolicy | undefined,
): HarnessV1NetworkSandboxSession {
  const { runtime, handle } = context;
  const provider = runtime.provider;
  const getPortEndpoint = async ({ port, protocol = "http" }: { port: number; protocol?: PortProtocol }) => {
    if (!runtime.portEndpoint) {
      throw await harnessCapabilityUnsupported(provider, "getPortEndpoint", "the runtime has no portEndpoint");
    }
    const endpoint = await runtime.portEndpoint(handle, port);
    const secure = endpoint.url.startsWith("https:");
    if (protocol === "https" && !secure) {
      throw await harnessCapabilityUnsupported(provider, "https port endpoints", `port ${port} is served over http`);
    }
    const url = protocol === "ws" ? endpoint.url.replace(/^http/, "ws") : endpoint.url;
    return endpoint.headers === undefined ? { url } : { url, headers: { ...endpoint.headers } };
  };
  return {
    ...sessionOf(context),
    id: handle.id,
    defaultWorkingDirectory: context.base,
    ports: [...ports],
    getPortEndpoint,
    getPortUrl: async (options) => {
      const endpoint = await getPortEndpoint(options);
      if (endpoint.headers !== undefined && Object.keys(endpoint.headers).length > 0) {
        throw await harnessCapabilityUnsupported(
          provider,
          "getPortUrl",
          `port ${options.port} needs request headers, which a bare URL cannot carry: use getPortEndpoint`,
        );
      }
      return endpoint.url;
    },
    stop: async () => {
      if (!runtime.stop) throw await harnessCapabilityUnsupported(provider, "stop", "the runtime has no stop");
      await runtime.stop(handle);
    },
    destroy: () => runtime.destroy(handle),
    setNetworkPolicy: async (policy) => {
      const mapped = mapHarnessNetworkPolicy(policy, "setNetworkPolicy policy", provider);
      if (
        mapped.network !== undefined &&
        launchedWith !== undefined &&
        sameNetworkPolicy(mapped.network, launchedWith)
      ) {
        return;
      }
      throw await harnessCapabilityUnsupported(
        provider,
        "setNetworkPolicy",
        launchedWith === undefined
          ? "the port sets a sandbox's network policy when it is launched, and this sandbox's is not known here: give it as createHarnessSandboxProvider's networkPolicy"
          : `the port sets a sandbox's network policy when it is launched, and this one was launched with ${JSON.stringify(launchedWith)}`,
      );
    },
    restricted: () => sessionOf(context),
  };
}
