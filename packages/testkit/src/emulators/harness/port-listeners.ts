/**
 * Ports a provider serves at an address of its own (Agent37's public ports,
 * Modal's tunnels): the emulator gives each sandbox and port an HTTP
 * listener on 127.0.0.1 that forwards every request to the backend's
 * endpoint for that port (`portEndpoint`), with the headers the endpoint
 * needs (a local runtime's carry a credential), so that the provider's
 * address needs none. Nothing listening is answered 502. This traffic is not
 * in the emulator's request log: it goes to the sandbox, not to the API.
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
export const HOP_BY_HOP: ReadonlySet<string> = new Set([
  "connection",
  "keep-alive",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "host",
]);

/** One port's listener: the sandbox's port, and the URL that reaches it. */
export interface ListenedPort {
  readonly port: number;
  /** `http://127.0.0.1:<listener port>`. */
  readonly url: string;
}

/** The port listeners of one emulator, by sandbox. */
export class PortListeners {
  readonly #backend: SandboxRuntime;
  readonly #listeners = new Map<string, Promise<{ servers: Server[]; ports: ListenedPort[] }>>();

  constructor(backend: SandboxRuntime) {
    this.#backend = backend;
  }

  /**
   * Opens one listener per port for a sandbox (`id`, the emulator's own) and
   * resolves their URLs; a sandbox whose listeners are open gets the same ones.
   */
  async open(id: string, handle: SandboxHandle, ports: readonly number[]): Promise<ListenedPort[]> {
    let opening = this.#listeners.get(id);
    if (opening === undefined) {
      opening = this.#listen(handle, ports);
      this.#listeners.set(id, opening);
    }
    return [...(await opening).ports];
  }

  /** Closes the listeners of one sandbox (it is gone). */
  async close(id: string): Promise<void> {
    const opening = this.#listeners.get(id);
    this.#listeners.delete(id);
    const opened = await opening?.catch(() => undefined);
    await Promise.all((opened?.servers ?? []).map(stop));
  }

  async #listen(handle: SandboxHandle, ports: readonly number[]) {
    const servers: Server[] = [];
    const opened: ListenedPort[] = [];
    for (const port of ports) {
      const server = await listen(
        createServer((request, response) => void this.#forward(handle, port, request, response)),
      );
      servers.push(server);
      const address = server.address() as AddressInfo;
      opened.push({ port, url: `http://127.0.0.1:${address.port}` });
    }
    return { servers, ports: opened };
  }

  #forward(handle: SandboxHandle, port: number, request: IncomingMessage, response: ServerResponse): Promise<void> {
    const refuse = (status: number, message: string) => {
      response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify({ error: message }));
    };
    return forwardToPort(this.#backend, handle, port, request, response, refuse);
  }
}

/**
 * Relays one HTTP request to the backend's endpoint for a sandbox's port,
 * with the headers the endpoint needs, and its answer back; the headers in
 * `hopByHop` stay on this hop. A backend without endpoints, a port without
 * one or a server that does not answer is `refuse`d with 502.
 */
export async function forwardToPort(
  backend: SandboxRuntime,
  handle: SandboxHandle,
  port: number,
  request: IncomingMessage,
  response: ServerResponse,
  refuse: (status: number, message: string) => void,
  hopByHop: ReadonlySet<string> = HOP_BY_HOP,
): Promise<void> {
  if (!backend.portEndpoint) {
    refuse(502, "the emulator's backend has no port endpoints");
    return;
  }
  let target: URL;
  let extra: Readonly<Record<string, string>> = {};
  try {
    const endpoint = await backend.portEndpoint(handle, port, { timeoutMs: 10_000 });
    target = new URL(request.url ?? "/", endpoint.url);
    extra = endpoint.headers ?? {};
  } catch (error) {
    refuse(502, `no endpoint for port ${port}: ${error instanceof Error ? error.message : String(error)}`);
    return;
  }
  const headers: OutgoingHttpHeaders = { ...extra, host: target.host };
  for (const [name, value] of Object.entries(request.headers)) {
    if (!hopByHop.has(name) && value !== undefined) headers[name] = value;
  }
  const upstream = httpRequest(target, { method: request.method ?? "GET", headers }, (answer) => {
    const forwarded: OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(answer.headers)) {
      if (!hopByHop.has(name) && value !== undefined) forwarded[name] = value;
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

/** Listens on 127.0.0.1 and an ephemeral port. */
export function listen(server: Server): Promise<Server> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve(server);
    });
  });
}

/** Stops listening and closes every connection. */
export function stop(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
