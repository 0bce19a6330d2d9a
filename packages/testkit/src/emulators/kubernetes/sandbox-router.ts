/**
 * The emulated sandbox-router: one port that takes HTTP/1.1 (sandboxd's
 * REST API, or a pod's own HTTP server on another port) and gRPC over h2c
 * (sandboxd's ProcessService), routed by `X-Sandbox-ID` (the pod's name),
 * `X-Sandbox-Namespace` and `X-Sandbox-Port`, with the router's 400 and 502
 * answers as `{"detail": ...}`.
 *
 * @module
 */

import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { connect, createServer as createNetServer, type Server, type Socket } from "node:net";
import type { Exchange } from "../harness/exchange.js";
import type { EmulatorServer } from "../harness/http-server.js";
import type { ErrorReplier } from "../harness/router.js";
import { GRPC, GrpcError, type GrpcServer } from "./grpc-server.js";
import { AGENT_SANDBOX_KEYS, SANDBOXES } from "./kinds.js";
import type { ObjectStore } from "./object-store.js";
import type { PodRuntime } from "./pod-runtime.js";
import { serveFileRequest } from "./sandboxd-files.js";
import { PROCESS_SERVICE, serveProcessCall } from "./sandboxd-process.js";

/** sandboxd's REST port. */
export const SANDBOXD_REST_PORT = 8080;
/** sandboxd's gRPC port. */
export const SANDBOXD_GRPC_PORT = 9090;
/** The router's default `X-Sandbox-Port`. */
export const DEFAULT_SANDBOX_PORT = 8888;

/** How the router finds a pod. */
export interface RouterParts {
  readonly store: ObjectStore;
  podRuntime(namespace: string, name: string): PodRuntime | undefined;
  readonly started: number;
}

/** A routing failure: the status and the `detail` the router answers. */
class RouteError extends Error {
  constructor(
    readonly status: number,
    detail: string,
  ) {
    super(detail);
  }
}

/** Errors of the router's own, as `{"detail": ...}`. */
export const detailErrorReply: ErrorReplier = (exchange, status, message, retryAfterSeconds) => {
  exchange.json(
    status,
    { detail: message },
    retryAfterSeconds === undefined ? {} : { "retry-after": String(retryAfterSeconds) },
  );
};

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

interface Target {
  readonly id: string;
  readonly namespace: string;
  readonly port: number;
  readonly pod: PodRuntime;
}

/** Validate the routing headers and find the running pod, as the router resolves a target. */
function resolveTarget(parts: RouterParts, header: (name: string) => string | undefined): Target {
  const id = header("x-sandbox-id") ?? "";
  if (id === "") throw new RouteError(400, "X-Sandbox-ID header is required.");
  if (id.length > 63 || !DNS_LABEL.test(id)) throw new RouteError(400, "Invalid sandbox ID format.");
  const namespace = header("x-sandbox-namespace") || "default";
  if (namespace.length > 63 || !DNS_LABEL.test(namespace)) throw new RouteError(400, "Invalid namespace format.");
  const portText = header("x-sandbox-port");
  const port = portText === undefined || portText === "" ? DEFAULT_SANDBOX_PORT : Number(portText);
  if (!/^\d+$/.test(portText ?? "0") || !Number.isInteger(port) || port < 1 || port > 65535) {
    throw new RouteError(400, "Invalid port format.");
  }
  const unreachable = new RouteError(502, `Could not connect to the backend sandbox: ${id}`);
  const sandbox = parts.store.find(SANDBOXES, namespace, id);
  const pod = parts.podRuntime(namespace, id);
  if (sandbox === undefined || pod === undefined || !pod.running) throw unreachable;
  // A warm-pool pod no claim has adopted is reachable only by its UID, not by a guessable name.
  if (
    sandbox.metadata.labels?.[AGENT_SANDBOX_KEYS.warmPool] !== undefined &&
    header("x-sandbox-uid") !== sandbox.metadata.uid
  ) {
    throw unreachable;
  }
  return { id, namespace, port, pod };
}

/** Register the router's HTTP/1.1 routes. */
export function registerRouterRoutes(server: EmulatorServer, parts: RouterParts): void {
  server.route({
    method: "GET",
    pattern: "/healthz",
    name: "router GET /healthz",
    handler: (exchange) => exchange.json(200, { status: "ok" }),
  });
  for (const method of ["GET", "HEAD", "PUT", "DELETE"]) {
    server.route({
      method,
      pattern: "/v1/files/*path",
      name: `router ${method} /v1/files/*`,
      handler: routed(parts, (exchange, target) =>
        target.port === SANDBOXD_REST_PORT && target.pod.sandboxd
          ? serveFileRequest(exchange, target.pod, exchange.params.path!)
          : proxy(exchange, target),
      ),
    });
  }
  for (const method of ["GET", "HEAD"]) {
    // `/v1/files/` with an empty path is the sandbox root.
    server.route({
      method,
      pattern: "/v1/files",
      name: `router ${method} /v1/files/*`,
      handler: routed(parts, (exchange, target) =>
        target.port === SANDBOXD_REST_PORT && target.pod.sandboxd
          ? serveFileRequest(exchange, target.pod, "")
          : proxy(exchange, target),
      ),
    });
  }
  server.route({
    method: "GET",
    pattern: "/v1/health",
    name: "router GET /v1/health",
    handler: routed(parts, (exchange, target) =>
      target.port === SANDBOXD_REST_PORT && target.pod.sandboxd
        ? exchange.json(200, { status: "ok", uptime_seconds: Math.floor((Date.now() - parts.started) / 1000) })
        : proxy(exchange, target),
    ),
  });
  for (const method of ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]) {
    server.route({
      method,
      pattern: "/*rest",
      name: `router ${method} /*`,
      handler: routed(parts, (exchange, target) => proxy(exchange, target)),
    });
  }
}

function routed(parts: RouterParts, handler: (exchange: Exchange, target: Target) => Promise<void> | void) {
  return async (exchange: Exchange) => {
    let target: Target;
    try {
      target = resolveTarget(parts, (name) => exchange.header(name));
    } catch (error) {
      if (!(error instanceof RouteError)) throw error;
      exchange.json(error.status, { detail: error.message });
      return;
    }
    await handler(exchange, target);
  };
}

/** Forward a plain HTTP request to a port of the pod (its backend port endpoint). */
async function proxy(exchange: Exchange, target: Target): Promise<void> {
  const unreachable = () => exchange.json(502, { detail: `Could not connect to the backend sandbox: ${target.id}` });
  const { runtime, handle } = target.pod;
  if (target.port === SANDBOXD_REST_PORT || target.port === SANDBOXD_GRPC_PORT || !runtime.portEndpoint) {
    unreachable();
    return;
  }
  let base: URL;
  let extraHeaders: Readonly<Record<string, string>> = {};
  try {
    const endpoint = await runtime.portEndpoint(handle, target.port, { timeoutMs: 30_000 });
    base = new URL(endpoint.url);
    extraHeaders = endpoint.headers ?? {};
  } catch {
    unreachable();
    return;
  }
  const headers: IncomingHttpHeaders = { ...exchange.headers, ...extraHeaders, host: base.host };
  delete headers.authorization;
  for (const name of Object.keys(headers)) if (name.startsWith("x-sandbox-")) delete headers[name];
  await new Promise<void>((resolve) => {
    const outbound = httpRequest(
      { host: base.hostname, port: base.port, method: exchange.method, path: exchange.rawPath, headers },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => {
          const passed: Record<string, string> = {};
          for (const [name, value] of Object.entries(response.headers)) {
            if (value !== undefined && name !== "transfer-encoding" && name !== "connection")
              passed[name] = String(value);
          }
          exchange.reply(response.statusCode ?? 502, passed, Buffer.concat(chunks));
          resolve();
        });
        response.on("error", () => {
          unreachable();
          resolve();
        });
      },
    );
    outbound.on("error", () => {
      unreachable();
      resolve();
    });
    outbound.end(exchange.body);
  });
}

/** Route gRPC calls (h2c) to sandboxd's ProcessService of the pod named in the metadata. */
export function registerProcessService(grpc: GrpcServer, parts: RouterParts): void {
  for (const method of ["Start", "Execute", "WriteStdin", "SendSignal", "ResizeTTY"]) {
    grpc.handle(`${PROCESS_SERVICE}/${method}`, async (call) => {
      let target: Target;
      try {
        target = resolveTarget(parts, (name) => call.header(name));
      } catch (error) {
        if (!(error instanceof RouteError)) throw error;
        throw new GrpcError(error.status === 400 ? GRPC.INVALID_ARGUMENT : GRPC.UNAVAILABLE, error.message);
      }
      if (target.port !== SANDBOXD_GRPC_PORT || !target.pod.sandboxd) {
        throw new GrpcError(GRPC.UNAVAILABLE, `Could not connect to the backend sandbox: ${target.id}`);
      }
      await serveProcessCall(method, call, target.pod);
    });
  }
}

/**
 * The router's one port: a connection that opens with the HTTP/2 preface is
 * gRPC (h2c), anything else is HTTP/1.1 for the router's HTTP server.
 */
export class RouterFront {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  #url = "";

  private constructor(httpPort: number, grpcPort: number) {
    this.#server = createNetServer((socket) => {
      this.#sockets.add(socket);
      socket.on("close", () => this.#sockets.delete(socket));
      socket.on("error", () => {});
      socket.once("data", (first: Buffer) => {
        socket.pause();
        socket.unshift(first);
        const port = first.subarray(0, 4).toString("latin1") === "PRI " ? grpcPort : httpPort;
        const upstream = connect(port, "127.0.0.1");
        this.#sockets.add(upstream);
        upstream.setNoDelay(true);
        socket.setNoDelay(true);
        upstream.on("close", () => {
          this.#sockets.delete(upstream);
          socket.destroy();
        });
        upstream.on("error", () => socket.destroy());
        socket.on("close", () => upstream.destroy());
        socket.pipe(upstream).pipe(socket);
        socket.resume();
      });
    });
  }

  /** Listen on 127.0.0.1 and an ephemeral port, handing HTTP/1.1 to `httpPort` and h2c to `grpcPort`. */
  static async start(httpPort: number, grpcPort: number): Promise<RouterFront> {
    const front = new RouterFront(httpPort, grpcPort);
    await new Promise<void>((resolve, reject) => {
      front.#server.once("error", reject);
      front.#server.listen(0, "127.0.0.1", () => resolve());
    });
    front.#url = `http://127.0.0.1:${(front.#server.address() as AddressInfo).port}`;
    return front;
  }

  /** `http://127.0.0.1:<port>`. */
  get url(): string {
    return this.#url;
  }

  /** Close every connection and stop listening. */
  async stop(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    for (const socket of this.#sockets) socket.destroy();
    await closed;
  }
}
