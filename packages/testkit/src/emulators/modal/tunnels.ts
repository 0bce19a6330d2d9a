/**
 * Tunnels (`SandboxGetTunnelsV2`): each port a sandbox opened at create
 * (`openPorts`) is reached through the backend's `portEndpoint`, so a server
 * a command starts in the sandbox answers for real.
 *
 * What differs from Modal: the emulator terminates no TLS. A tunnel's `host`
 * and `port` (and, for `unencryptedPorts`, `unencryptedHost` and
 * `unencryptedPort`) are the backend endpoint's plain `127.0.0.1:<port>`, so
 * the SDK's `Tunnel.url` (always `https://`) names an address that speaks
 * plain HTTP here; `Tunnel.tcpSocket` of an unencrypted tunnel is exact.
 *
 * @module
 */

import { type ModalContext, unary } from "./context.js";
import type { WireJson } from "./grpc-server.js";
import { toGrpcError } from "./grpc-status.js";

/** Deadline of one backend `portEndpoint` call. */
const ENDPOINT_TIMEOUT_MS = 30_000;

/** Implement tunnel lookups on the emulator. */
export function registerTunnels(context: ModalContext): void {
  context.implement(
    "controlPlane",
    "SandboxGetTunnelsV2",
    unary(async (request) => {
      const sandbox = context.state.sandbox(request.sandboxId);
      if (sandbox.result) return { result: sandbox.result, tunnels: [] };
      sandbox.touch();
      const tunnels: WireJson[] = [];
      for (const { port, unencrypted } of sandbox.settings.ports) {
        const endpoint = await context.backend
          .portEndpoint?.(sandbox.handle, port, { timeoutMs: ENDPOINT_TIMEOUT_MS })
          .catch((error: unknown) => {
            throw toGrpcError(error);
          });
        if (!endpoint) continue;
        const address = new URL(endpoint.url);
        const host = address.hostname;
        const hostPort = Number(address.port || (address.protocol === "https:" ? 443 : 80));
        tunnels.push({
          host,
          port: hostPort,
          ...(unencrypted ? { unencryptedHost: host, unencryptedPort: hostPort } : {}),
          containerPort: port,
        });
      }
      return { tunnels };
    }),
  );
}
