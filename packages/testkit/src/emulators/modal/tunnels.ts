/**
 * Tunnels (`SandboxGetTunnelsV2`): each port a sandbox opened at create
 * (`openPorts`) is reached through a listener of the emulator's own, which
 * forwards every request to the backend's `portEndpoint` with the headers it
 * needs, so a server a command starts in the sandbox answers for real at an
 * address that needs none, as a Modal tunnel's does.
 *
 * What differs from Modal: the emulator terminates no TLS, and its listener
 * speaks HTTP, not any TCP. A tunnel's `host` and `port` (and, for
 * `unencryptedPorts`, `unencryptedHost` and `unencryptedPort`) are the
 * listener's plain `127.0.0.1:<port>`, so the SDK's `Tunnel.url` (always
 * `https://`) names an address that speaks plain HTTP here, and
 * `Tunnel.tcpSocket` of an unencrypted tunnel carries HTTP only.
 *
 * @module
 */

import { type ModalContext, unary } from "./context.js";
import type { WireJson } from "./grpc-server.js";
import { toGrpcError } from "./grpc-status.js";

/** Implement tunnel lookups on the emulator. */
export function registerTunnels(context: ModalContext): void {
  context.implement(
    "controlPlane",
    "SandboxGetTunnelsV2",
    unary(async (request) => {
      const sandbox = context.state.sandbox(request.sandboxId);
      if (sandbox.result) return { result: sandbox.result, tunnels: [] };
      sandbox.touch();
      const { ports } = sandbox.settings;
      const listened = await context.tunnels
        .open(
          sandbox.settings.id,
          sandbox.handle,
          ports.map(({ port }) => port),
        )
        .catch((error: unknown) => {
          throw toGrpcError(error);
        });
      const tunnels: WireJson[] = listened.map(({ port, url }) => {
        const address = new URL(url);
        const host = address.hostname;
        const hostPort = Number(address.port);
        const unencrypted = ports.find((tunnel) => tunnel.port === port)?.unencrypted === true;
        return {
          host,
          port: hostPort,
          ...(unencrypted ? { unencryptedHost: host, unencryptedPort: hostPort } : {}),
          containerPort: port,
        };
      });
      return { tunnels };
    }),
  );
}
