import type { ExposedPortEndpoint } from "@openai/agents-core/sandbox";
import { type SandboxHandle, type SandboxRuntime, SandportError } from "@sandport/core";
import type { AgentsSdk } from "./internal/sdk.js";
import type { SandportSessionState } from "./session.js";

/**
 * The framework's exposed-port endpoint for `port`, from the runtime's
 * `portEndpoint`: host, port and TLS parsed from its URL, the URL itself, and
 * the headers every request must carry (`headers`, an extra key the
 * framework's type allows) where the runtime needs them. The state records
 * the endpoint without its headers, since the state is serialised. A runtime without
 * `portEndpoint` is refused with `SandboxUnsupportedFeatureError`; a port the
 * runtime needed declared at launch, with `SandboxExposedPortUnavailableError`.
 */
export async function portEndpointFor<H extends SandboxHandle>(
  sdk: AgentsSdk,
  runtime: SandboxRuntime<H>,
  state: SandportSessionState<H>,
  port: number,
): Promise<ExposedPortEndpoint> {
  const portEndpoint = runtime.portEndpoint;
  if (typeof portEndpoint !== "function") {
    throw new sdk.SandboxUnsupportedFeatureError(`${runtime.provider} has no portEndpoint: ports cannot be exposed`, {
      provider: runtime.provider,
      feature: "ports",
      port,
    });
  }
  let endpoint: Awaited<ReturnType<typeof portEndpoint>>;
  try {
    endpoint = await portEndpoint.call(runtime, state.sandbox, port);
  } catch (error) {
    if (SandportError.hasCode(error, "INVALID_REQUEST"))
      throw new sdk.SandboxExposedPortUnavailableError(`port ${port} is not exposed: ${error.message}`, {
        provider: runtime.provider,
        port,
        cause: error,
      });
    throw error;
  }
  const url = new URL(endpoint.url);
  const tls = url.protocol === "https:" || url.protocol === "wss:";
  const recorded = sdk.recordExposedPortEndpoint(
    state,
    { host: url.hostname, port: url.port === "" ? (tls ? 443 : 80) : Number(url.port), tls, url: endpoint.url },
    port,
  );
  // Headers are credentials: returned to the caller, never recorded in the (serialisable) session state.
  return endpoint.headers === undefined ? recorded : { ...recorded, headers: { ...endpoint.headers } };
}
