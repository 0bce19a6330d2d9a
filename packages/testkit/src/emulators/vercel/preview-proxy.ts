/**
 * The preview proxy: what stands behind `https://<subdomain>.vercel.run` of a
 * declared port. A plain HTTP server on 127.0.0.1 that takes a request as
 * `/<host>/<path>` (the form `preview-hosts.ts` rewrites it to), finds the
 * running sandbox and port the host was issued for, asks the backend for the
 * port's endpoint (`portEndpoint`) and relays the request there and the
 * answer back, streaming both ways. Preview traffic is not API traffic: it
 * is not in the request log and faults do not apply to it.
 *
 * A host nobody issued is answered 404; a sandbox whose session is not
 * running, or a port nothing listens on, 502 (Vercel answers those with an
 * error page too).
 *
 * @module
 */

import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { SandboxRuntime } from "@sandport/core";
import type { VercelSandbox } from "./context.js";

/** How long the backend may take to give a port's endpoint. */
const ENDPOINT_TIMEOUT_MS = 10_000;
/** Request headers that belong to one hop, not to the relayed request. */
const HOP_HEADERS = new Set(["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "host"]);

/** The sandbox and port a preview host was issued for. */
export interface PreviewRoute {
  readonly sandbox: VercelSandbox;
  readonly port: number;
}

/** A running preview proxy. */
export class PreviewProxy {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  readonly #url: string;

  private constructor(server: Server, url: string) {
    this.#server = server;
    this.#url = url;
    server.on("connection", (socket) => {
      this.#sockets.add(socket);
      socket.on("close", () => this.#sockets.delete(socket));
    });
  }

  /** Listens on 127.0.0.1 and an ephemeral port; `find` maps a host to its route. */
  static async start(
    backend: SandboxRuntime,
    find: (hostname: string) => PreviewRoute | undefined,
  ): Promise<PreviewProxy> {
    const server = createServer((incoming, outgoing) => {
      relay(backend, find, incoming, outgoing).catch((error: unknown) => answer(outgoing, 502, messageOf(error)));
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
    server.unref();
    return new PreviewProxy(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  }

  /** `http://127.0.0.1:<port>`. */
  get url(): string {
    return this.#url;
  }

  /** Stops listening and drops every open connection. */
  async stop(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

async function relay(
  backend: SandboxRuntime,
  find: (hostname: string) => PreviewRoute | undefined,
  incoming: IncomingMessage,
  outgoing: ServerResponse,
): Promise<void> {
  const [, hostname = "", ...rest] = (incoming.url ?? "/").split("/");
  const route = find(hostname);
  if (!route) return answer(outgoing, 404, `no sandbox port is published at ${hostname}`);
  const { sandbox, port } = route;
  const handle = sandbox.data.handle;
  if (sandbox.data.session.status !== "running" || !handle || !backend.portEndpoint) {
    return answer(outgoing, 502, `sandbox ${sandbox.id} is not running`);
  }
  const endpoint = await backend.portEndpoint(handle, port, { timeoutMs: ENDPOINT_TIMEOUT_MS });
  const target = new URL(`/${rest.join("/")}`, endpoint.url);
  const headers: Record<string, string | string[]> = { ...endpoint.headers };
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (value !== undefined && !HOP_HEADERS.has(name)) headers[name] = value;
  }
  const upstream = request(target, { method: incoming.method, headers }, (reply) => {
    outgoing.writeHead(reply.statusCode ?? 502, reply.headers);
    reply.pipe(outgoing);
  });
  upstream.on("error", (error) => answer(outgoing, 502, `port ${port} of sandbox ${sandbox.id}: ${error.message}`));
  incoming.pipe(upstream);
}

function answer(outgoing: ServerResponse, status: number, message: string): void {
  if (outgoing.headersSent) {
    outgoing.destroy();
    return;
  }
  outgoing.writeHead(status, { "content-type": "text/plain; charset=utf-8" }).end(`${message}\n`);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
