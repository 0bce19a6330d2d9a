// For tests of a provider's egress rules on an emulator: two local HTTP servers, names that resolve to
// them on the backend, a backend that enforces allow lists, and a command that fetches from inside.
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalRuntime } from "@sandport/local";
import { defaultBackendIsolation, destroyEverySandbox } from "./backend.js";

/** The name that resolves to the "allowed" server (127.0.0.1) on an {@link egressBackend}. */
export const ALLOWED_HOST = "allowed.sandport.test";
/** The name that resolves to the "denied" server (127.0.0.2) on an {@link egressBackend}. */
export const DENIED_HOST = "denied.sandport.test";

const ADDRESSES: Readonly<Record<string, string>> = { [ALLOWED_HOST]: "127.0.0.1", [DENIED_HOST]: "127.0.0.2" };

/** The two servers: each answers every request with its own body ("allowed" or "denied"). */
export interface EgressTargets {
  /** Port of the server on 127.0.0.1, body "allowed". */
  readonly allowedPort: number;
  /** Port of the server on 127.0.0.2, body "denied". */
  readonly deniedPort: number;
  close(): Promise<void>;
}

/** Starts the two servers on ephemeral ports. */
export async function startEgressTargets(): Promise<EgressTargets> {
  const start = async (address: string, body: string): Promise<Server> => {
    const server = createServer((_request, response) => response.end(body));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, address, resolve);
    });
    return server;
  };
  const allowed = await start("127.0.0.1", "allowed");
  const denied = await start("127.0.0.2", "denied").catch(async (error: unknown) => {
    await new Promise((resolve) => allowed.close(resolve));
    throw error;
  });
  const close = (server: Server) =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return {
    allowedPort: (allowed.address() as AddressInfo).port,
    deniedPort: (denied.address() as AddressInfo).port,
    close: async () => {
      await Promise.all([close(allowed), close(denied)]);
    },
  };
}

/**
 * A `LocalRuntime` shaped like the default backend (`isolation`
 * `"namespaces"` with the default backend's `namespaceScope`, or `"none"`
 * when `unisolated`), whose egress proxy resolves {@link ALLOWED_HOST} and
 * {@link DENIED_HOST} to the two servers and nothing else, in a fresh root
 * that `dispose` removes.
 */
export async function egressBackend(
  workspaceRoot: string,
  unisolated = false,
): Promise<{ runtime: LocalRuntime; dispose(): Promise<void> }> {
  const root = await mkdtemp(join(tmpdir(), "sandport-emulator-egress-"));
  const isolation = await defaultBackendIsolation();
  const namespaceScope = isolation.isolated ? isolation.namespaceScope : "command";
  const egressResolver = async (host: string) => (ADDRESSES[host] === undefined ? [] : [ADDRESSES[host]]);
  const runtime = unisolated
    ? new LocalRuntime({ root, isolation: "none", workspaceRoot })
    : new LocalRuntime({ root, isolation: "namespaces", workspaceRoot, namespaceScope, egressResolver });
  return {
    runtime,
    dispose: async () => {
      await destroyEverySandbox(runtime);
      await rm(root, { recursive: true, force: true, maxRetries: 3 });
    },
  };
}

/**
 * A command that fetches `url` with Python's urllib (which honours the proxy
 * variables the backend sets) and prints the body; it exits non-zero when the
 * fetch fails.
 */
export function fetchScript(url: string): string {
  return `python3 -c 'import sys,urllib.request;sys.stdout.write(urllib.request.urlopen(sys.argv[1],timeout=10).read().decode())' ${url}`;
}
