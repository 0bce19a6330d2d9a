/**
 * Public ports: a port named in a create's `public_ports` is served at a
 * permanent, unauthenticated URL (`public_ports[].url`). Agent37 serves them
 * from its own hosts; the emulator gives each instance and port its own HTTP
 * listener on 127.0.0.1, which forwards every request to the backend's
 * endpoint for that port (`portEndpoint`). Nothing listening is answered 502.
 * This traffic is not in the emulator's request log: it goes to the
 * instance, not to Agent37's API.
 *
 * @module
 */

import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import type { SandboxHandle, SandboxRuntime } from "@sandport/core";

/** Headers that belong to one hop and are not forwarded. */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "te", "trailer", "transfer-encoding", "upgrade", "host"]);

/** One public port as the instance object reports it. */
export interface PublicPort {
  readonly port: number;
  readonly url: string;
  readonly prefix: string | null;
  /** Epoch seconds. */
  readonly created: number;
}

/** The public-port listeners of one emulator. */
export class PublicPorts {
  readonly #backend: SandboxRuntime;
  readonly #listeners = new Map<string, Server[]>();

  constructor(backend: SandboxRuntime) {
    this.#backend = backend;
  }

  /** Opens one listener per port for an instance; resolves what its instance object reports. */
  async open(instanceId: string, handle: SandboxHandle, ports: readonly number[]): Promise<PublicPort[]> {
    const servers: Server[] = [];
    this.#listeners.set(instanceId, servers);
    const opened: PublicPort[] = [];
    for (const port of ports) {
      const server = await listen(
        createServer((request, response) => void this.#forward(handle, port, request, response)),
      );
      servers.push(server);
      const address = server.address() as AddressInfo;
      opened.push({
        port,
        url: `http://127.0.0.1:${address.port}`,
        prefix: null,
        created: Math.floor(Date.now() / 1000),
      });
    }
    return opened;
  }

  /** Closes the listeners of one instance (it was deleted). */
  async close(instanceId: string): Promise<void> {
    const servers = this.#listeners.get(instanceId) ?? [];
    this.#listeners.delete(instanceId);
    await Promise.all(servers.map(stop));
  }

  async #forward(handle: SandboxHandle, port: number, request: IncomingMessage, response: ServerResponse) {
    const refuse = (status: number, message: string) => {
      response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify({ error: message }));
    };
    if (!this.#backend.portEndpoint) {
      refuse(502, "the emulator's backend has no port endpoints");
      return;
    }
    let target: URL;
    let extra: Readonly<Record<string, string>> = {};
    try {
      const endpoint = await this.#backend.portEndpoint(handle, port, { timeoutMs: 10_000 });
      target = new URL(request.url ?? "/", endpoint.url);
      extra = endpoint.headers ?? {};
    } catch (error) {
      refuse(502, `no endpoint for port ${port}: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    const headers: OutgoingHttpHeaders = { ...extra, host: target.host };
    for (const [name, value] of Object.entries(request.headers)) {
      if (!HOP_BY_HOP.has(name) && value !== undefined) headers[name] = value;
    }
    const upstream = httpRequest(target, { method: request.method ?? "GET", headers }, (answer) => {
      const forwarded: OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(answer.headers)) {
        if (!HOP_BY_HOP.has(name) && value !== undefined) forwarded[name] = value;
      }
      response.writeHead(answer.statusCode ?? 502, forwarded);
      answer.pipe(response);
    });
    upstream.on("error", (error) => {
      if (response.headersSent) response.destroy();
      else refuse(502, `nothing answered on port ${port}: ${error.message}`);
    });
    request.pipe(upstream);
  }
}

function listen(server: Server): Promise<Server> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve(server);
    });
  });
}

function stop(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
