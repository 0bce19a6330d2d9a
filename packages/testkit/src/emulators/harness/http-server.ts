import { createServer, type IncomingMessage, type Server, ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { Duplex } from "node:stream";
import { Exchange, type UpgradeSocket } from "./exchange.js";
import { FaultInjector } from "./faults.js";
import { RequestLog } from "./request-log.js";
import { type ErrorReplier, type RouteDefinition, Router } from "./router.js";

/** Options of {@link EmulatorServer.start}. */
export interface EmulatorServerOptions {
  /** Name given to a request that matched no route. Default: `"<METHOD> <pathname>"`. */
  readonly nameUnknownRoute?: (method: string, pathname: string) => string;
  /** Answer to a request that matched no route (it is logged first). Default: 404 with a JSON error. */
  readonly answerUnknownRoute?: (exchange: Exchange) => void;
  /** Shape of error answers for routes without their own `errorReply`. Default: `{ code, message }` JSON. */
  readonly errorReply?: ErrorReplier;
  /** Largest request body accepted, in bytes. Default: 256 MiB. */
  readonly maxBodyBytes?: number;
  /** Where requests are recorded, when shared with another server of the same emulator. Default: a new log. */
  readonly log?: RequestLog;
  /** Which faults apply, when shared with another server of the same emulator. Default: new rules. */
  readonly faults?: FaultInjector;
}

/** The default error shape: `{ "code": <status>, "message": ... }`, as most REST APIs answer. */
export const jsonErrorReply: ErrorReplier = (exchange, status, message, retryAfterSeconds) => {
  exchange.json(
    status,
    { code: status, message },
    retryAfterSeconds === undefined ? {} : { "retry-after": String(retryAfterSeconds) },
  );
};

/** How long an idle keep-alive connection stays open (longer than any test waits between two calls). */
const IDLE_CONNECTION_MS = 10 * 60_000;

/**
 * The generic part of every emulator: an HTTP server on 127.0.0.1 and an
 * ephemeral port, with routing, request accounting, fault injection and
 * unknown-route logging. Provider emulators add routes and state.
 *
 * Upgrade requests (WebSockets) go through the same routing, log and faults;
 * a route's handler accepts one with `exchange.acceptWebSocket()`, and any
 * other answer (an error, an unknown route) goes out as plain HTTP on the
 * connection, which is then closed.
 */
export class EmulatorServer {
  readonly log: RequestLog;
  readonly faults: FaultInjector;
  readonly #router = new Router();
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  readonly #inflight = new Set<Exchange>();
  readonly #options: EmulatorServerOptions;
  #url = "";
  #stopping: Promise<void> | undefined;

  private constructor(options: EmulatorServerOptions) {
    this.#options = options;
    this.log = options.log ?? new RequestLog();
    this.faults = options.faults ?? new FaultInjector();
    this.#server = createServer((request, response) => {
      this.#handle(request, response).catch(() => {
        if (!response.headersSent) response.destroy();
      });
    });
    // An idle keep-alive connection is kept, not closed after Node's 5 s: a client that sends its next
    // request just as the server closes the socket reads ECONNRESET, which loaded test machines hit.
    // stop() destroys every socket anyway.
    this.#server.keepAliveTimeout = IDLE_CONNECTION_MS;
    this.#server.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      // A reset during the handshake must not become an unhandled error event.
      socket.on("error", () => {});
      this.#handleUpgrade(request, socket, head).catch(() => socket.destroy());
    });
    this.#server.on("connection", (socket) => {
      this.#sockets.add(socket);
      socket.on("close", () => this.#sockets.delete(socket));
    });
  }

  /** Listen on 127.0.0.1 with an ephemeral port. */
  static async start(options: EmulatorServerOptions = {}): Promise<EmulatorServer> {
    const server = new EmulatorServer(options);
    await new Promise<void>((resolve, reject) => {
      server.#server.once("error", reject);
      server.#server.listen(0, "127.0.0.1", () => {
        server.#server.off("error", reject);
        resolve();
      });
    });
    const address = server.#server.address() as AddressInfo;
    server.#url = `http://127.0.0.1:${address.port}`;
    return server;
  }

  /** `http://127.0.0.1:<port>`. */
  get url(): string {
    return this.#url;
  }

  get stopped(): boolean {
    return this.#stopping !== undefined;
  }

  route(route: RouteDefinition): void {
    this.#router.add(route);
  }

  /** Abort in-flight handlers, destroy every connection and stop listening. Idempotent. */
  stop(): Promise<void> {
    this.#stopping ??= (async () => {
      for (const exchange of this.#inflight) exchange.abort(new Error("emulator stopped"));
      const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
      this.#server.closeAllConnections();
      for (const socket of this.#sockets) socket.destroy();
      await closed;
    })();
    return this.#stopping;
  }

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    await this.#dispatch(request, response, undefined);
  }

  async #handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    // The answer to an upgrade request is written on its raw connection; a
    // response bound to it lets error answers use the same code as plain requests.
    const response = new ServerResponse(request);
    response.shouldKeepAlive = false;
    response.assignSocket(socket as Socket);
    response.on("finish", () => socket.end());
    await this.#dispatch(request, response, { socket, head });
  }

  async #dispatch(
    request: IncomingMessage,
    response: ServerResponse,
    upgrade: UpgradeSocket | undefined,
  ): Promise<void> {
    if (this.#stopping) {
      request.socket.destroy();
      return;
    }
    const method = (request.method ?? "GET").toUpperCase();
    const rawPath = request.url ?? "/";
    const url = new URL(rawPath, this.#url);
    const match = this.#router.match(method, url.pathname);
    const routeName =
      match?.name ?? this.#options.nameUnknownRoute?.(method, url.pathname) ?? `${method} ${url.pathname}`;
    const record = this.log.add(method, rawPath, routeName, request.headers);
    if (!match) this.log.addUnknown(method, rawPath);

    const fault = this.faults.take(routeName);
    if (fault?.kind === "drop") {
      request.socket.destroy();
      record.endedAt = Date.now();
      return;
    }
    // An upgrade request has no body; its stream never ends, so it is not read.
    const body = upgrade ? Buffer.alloc(0) : await readBody(request, this.#options.maxBodyBytes ?? 256 * 1024 * 1024);
    if (body === undefined) {
      request.socket.destroy();
      record.endedAt = Date.now();
      return;
    }
    const exchange = new Exchange(request, response, record, url, body, upgrade);
    const errorReply = match?.route.errorReply ?? this.#options.errorReply ?? jsonErrorReply;
    this.#inflight.add(exchange);
    try {
      if (fault?.kind === "latency") {
        await delay(fault.ms, exchange.signal);
        if (exchange.signal.aborted) return;
      }
      if (fault?.kind === "status") {
        errorReply(exchange, fault.status, `injected fault: HTTP ${fault.status}`, fault.retryAfterSeconds);
        return;
      }
      if (fault?.kind === "drop-mid-stream") exchange.disrupt({ kind: "cut", afterEvents: fault.afterEvents ?? 1 });
      if (fault?.kind === "lost-response") exchange.disrupt({ kind: "lost-response" });
      if (fault?.kind === "late-response") exchange.disrupt({ kind: "late", ms: fault.ms });
      if (!match) {
        const answer = this.#options.answerUnknownRoute;
        if (answer) answer(exchange);
        else errorReply(exchange, 404, `no route for ${method} ${url.pathname}`);
        return;
      }
      exchange.params = match.params;
      await match.route.handler(exchange);
      if (!exchange.answered) errorReply(exchange, 500, `emulator bug: ${routeName} did not answer`);
    } catch (error) {
      if (exchange.answered) exchange.destroy();
      else errorReply(exchange, 500, `emulator error: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      this.#inflight.delete(exchange);
      record.endedAt = Date.now();
    }
  }
}

async function readBody(request: IncomingMessage, maxBytes: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of request) {
      const buffer = chunk as Buffer;
      size += buffer.length;
      if (size > maxBytes) return undefined;
      chunks.push(buffer);
    }
  } catch {
    return undefined;
  }
  return Buffer.concat(chunks);
}

/** Resolves after `ms`, or early when the signal aborts. Never rejects. */
export function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) {
      resolve();
      return;
    }
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}
