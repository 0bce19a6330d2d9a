import { invalidRequest, type OpOptions, type PortEndpoint, validatePort } from "@sandport/core";
import type { ModalContext } from "./context.js";
import { PROVIDER } from "./handle.js";

/** Longest wait Modal's tunnel lookup takes, in ms. */
const MAX_TUNNEL_WAIT_MS = 50_000;

/**
 * Where to reach `port` of a sandbox: the tunnel Modal opened for it at
 * launch. With `tunnels: "tls"` the tunnel's `https://` URL (TLS ends at
 * Modal); with `"tcp"`, `http://<host>:<port>` of its plain TCP tunnel. No
 * headers: a tunnel is open to anyone who has its URL. Modal opens tunnels
 * only at create, so a port not in `LaunchSpec.ports` is `INVALID_REQUEST`:
 * before any request for a sandbox launched here, after one tunnel lookup
 * otherwise.
 */
export async function portEndpoint(
  context: ModalContext,
  handle: unknown,
  port: number,
  op?: OpOptions,
): Promise<PortEndpoint> {
  const checked = validatePort(port, PROVIDER);
  const { lookupMs } = context.options.timeouts;
  return context.onHandle(handle, op, "portEndpoint", lookupMs, async (sandboxId, call) => {
    const declared = context.declaredPorts(sandboxId);
    if (declared !== undefined && !declared.includes(checked)) throw undeclared(checked);
    const sandbox = await context.instance(sandboxId, "portEndpoint", call);
    const tunnel = (await sandbox.tunnels(Math.min(MAX_TUNNEL_WAIT_MS, Math.max(1000, call.remainingMs()))))[checked];
    if (!tunnel) throw undeclared(checked);
    if (context.options.tunnels === "tls") return { url: tunnel.url };
    if (tunnel.unencryptedHost === undefined || tunnel.unencryptedPort === undefined) {
      throw invalidRequest(
        `port ${checked} has a TLS tunnel only (the sandbox was launched with tunnels: "tls")`,
        { field: "port", port: checked },
        PROVIDER,
      );
    }
    return { url: `http://${tunnel.unencryptedHost}:${tunnel.unencryptedPort}` };
  });
}

function undeclared(port: number) {
  return invalidRequest(
    `port ${port} was not declared at launch (LaunchSpec.ports): Modal opens tunnels only when it creates a sandbox`,
    { field: "port", port },
    PROVIDER,
  );
}
