import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** The names `lifecycle.network-allow` fetches, and the loopback address each one stands for. */
export const CONFORMANCE_EGRESS_NAMES = Object.freeze({
  /** Named in the allow list; its server answers `allowed`. */
  allowed: "allowed.sandport.test",
  /** Never named in an allow list; its server answers `denied`. */
  denied: "denied.sandport.test",
});

const ADDRESSES: Readonly<Record<string, string>> = {
  [CONFORMANCE_EGRESS_NAMES.allowed]: "127.0.0.1",
  [CONFORMANCE_EGRESS_NAMES.denied]: "127.0.0.2",
};

/**
 * The resolver a fixture gives the runtime's egress proxy (LocalRuntime's
 * `egressResolver`, directly or behind an emulator) so that
 * `lifecycle.network-allow` can run offline: `allowed.sandport.test` is
 * `127.0.0.1`, `denied.sandport.test` is `127.0.0.2`, any other name has no
 * address (nothing the check does reaches the internet).
 */
export async function conformanceEgressResolver(host: string): Promise<readonly string[]> {
  const address = ADDRESSES[host.toLowerCase().replace(/\.$/, "")];
  return address === undefined ? [] : [address];
}

/** The two servers of `lifecycle.network-allow`, on this machine's loopback. */
export interface EgressServers {
  /** Port of the server on `127.0.0.1`, which answers `allowed`. */
  readonly allowedPort: number;
  /** Port of the server on `127.0.0.2`, which answers `denied`. */
  readonly deniedPort: number;
  /** Closes both (open connections too). */
  close(): Promise<void>;
}

/** Starts the servers of {@link EgressServers} on ephemeral ports. */
export async function startEgressServers(): Promise<EgressServers> {
  const servers: Server[] = [];
  const listen = async (host: string, body: string): Promise<number> => {
    const server = createServer((_request, response) => response.end(body));
    servers.push(server);
    server.listen(0, host);
    await once(server, "listening");
    return (server.address() as AddressInfo).port;
  };
  const close = async () => {
    await Promise.all(
      servers.map(
        (server) =>
          new Promise<void>((resolve) => {
            server.closeAllConnections();
            server.close(() => resolve());
          }),
      ),
    );
  };
  try {
    const allowedPort = await listen("127.0.0.1", "allowed");
    const deniedPort = await listen("127.0.0.2", "denied");
    return { allowedPort, deniedPort, close };
  } catch (error) {
    await close();
    throw error;
  }
}
