/**
 * HTTP to the ports of an emulated sandbox, served the way E2B's edge serves
 * them, by a real server a command started in the sandbox's backend.
 *
 * - Routing: by the headers `E2b-Sandbox-Id` and `E2b-Sandbox-Port` on the
 *   sandbox URL (what the SDK sends to reach envd through `sandboxUrl`, and
 *   what `E2BRuntime.portEndpoint` gives there), or by the host name
 *   `<port>-<sandboxId>.<domain>` (the hosted form: the emulator's domain
 *   resolves nowhere, so only a client that sets `Host` itself arrives that
 *   way). The headers win when both are present. Port 49983 is envd's.
 * - Access: a private sandbox (`network.allowPublicTraffic: false`) answers
 *   403 unless `e2b-traffic-access-token` carries its token.
 * - Errors as E2B's edge words them: 502 for a sandbox that is not running,
 *   and for a port nothing listens on ("The sandbox is running but port is not open").
 * - Forwarding: to the backend's `portEndpoint` for the sandbox (`LocalRuntime`
 *   gives the port on 127.0.0.1, or its forwarder for a sandbox without
 *   network), without the routing and token headers; the answer comes back
 *   as it is (status, headers, body bytes), streamed.
 *
 * @module
 */

import { request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from "node:http";
import { request as httpsRequest } from "node:https";
import type { Exchange } from "../harness/exchange.js";
import type { EmulatorServer } from "../harness/http-server.js";
import type { E2BContext, E2BSandbox } from "./context.js";
import { messageOf } from "./errors.js";

/** envd's port in every sandbox: requests for it are envd's, not a sandbox server's. */
export const ENVD_PORT = 49983;
/** The header a private sandbox's ports require. */
export const TRAFFIC_TOKEN_HEADER = "e2b-traffic-access-token";

/** How long the backend may take to say where a port is. */
const ENDPOINT_TIMEOUT_MS = 30_000;
/** Request headers that belong to one hop, or to the edge, and are not passed to the sandbox's server. */
const DROPPED_REQUEST = new Set([
  "host",
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "upgrade",
  "te",
  "trailer",
  "content-length",
  "e2b-sandbox-id",
  "e2b-sandbox-port",
  TRAFFIC_TOKEN_HEADER,
]);
/** Response headers of one hop, which the emulator's own server sets for its answer. */
const DROPPED_RESPONSE = new Set(["connection", "keep-alive", "transfer-encoding", "upgrade", "trailer"]);

/** Which sandbox port a request is for. */
export interface PortTarget {
  readonly sandboxId: string;
  /** As the request named it: checked by {@link forwardToPort}. */
  readonly port: string;
}

/** The sandbox port a request addresses, or `undefined` when it is for envd or the control plane. */
export function portTarget(exchange: Exchange, domain: string): PortTarget | undefined {
  const sandboxId = exchange.header("e2b-sandbox-id");
  const port = exchange.header("e2b-sandbox-port");
  if (sandboxId !== undefined && port !== undefined) {
    return port === String(ENVD_PORT) ? undefined : { sandboxId, port };
  }
  const host = (exchange.header("host") ?? "").toLowerCase().replace(/:\d+$/, "");
  const suffix = `.${domain.toLowerCase()}`;
  if (!host.endsWith(suffix)) return undefined;
  const match = /^(\d+)-([a-z0-9_-]+)$/.exec(host.slice(0, -suffix.length));
  if (!match || match[1] === String(ENVD_PORT)) return undefined;
  return { port: match[1] as string, sandboxId: match[2] as string };
}

/** Serves one request for a sandbox port (see the module comment). Answers every outcome itself. */
export async function forwardToPort(context: E2BContext, exchange: Exchange, target: PortTarget): Promise<void> {
  const { sandboxId } = target;
  const refuse = (status: number, message: string, extra: Record<string, unknown> = {}) =>
    exchange.json(status, { sandboxId, message, ...extra, code: status });
  const port = Number(target.port);
  if (!/^\d{1,5}$/.test(target.port) || port < 1 || port > 65_535) {
    refuse(400, `invalid sandbox port ${JSON.stringify(target.port)}`);
    return;
  }
  const sandbox = context.registry.get(sandboxId);
  if (sandbox?.state !== "running") {
    refuse(502, `The sandbox ${sandboxId} was not found`);
    return;
  }
  const required = sandbox.data.trafficAccessToken;
  const given = exchange.header(TRAFFIC_TOKEN_HEADER);
  if (required !== undefined && given !== required) {
    const why = given === undefined ? "is missing" : "is invalid";
    refuse(403, `Sandbox is secured with traffic access token. Token header '${TRAFFIC_TOKEN_HEADER}' ${why}`);
    return;
  }
  const notOpen = () => refuse(502, "The sandbox is running but port is not open", { port });
  let base: URL;
  let headers: Readonly<Record<string, string>>;
  try {
    const endpoint = await endpointOf(context, sandbox, port);
    base = new URL(endpoint.url);
    headers = endpoint.headers ?? {};
  } catch {
    // The backend cannot reach that port (e.g. a sandbox without network that did not declare it).
    notOpen();
    return;
  }
  let response: IncomingMessage;
  try {
    response = await send(base, exchange, headers);
  } catch {
    if (!exchange.signal.aborted) notOpen();
    return;
  }
  const answer: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined && !DROPPED_RESPONSE.has(name)) answer[name] = value;
  }
  const stream = exchange.stream(response.statusCode ?? 502, answer);
  response.on("data", (chunk: Buffer) => stream.write(chunk));
  await new Promise<void>((resolve) => {
    response.once("end", resolve);
    response.once("error", resolve);
    response.once("close", resolve);
  });
  stream.end();
}

async function endpointOf(context: E2BContext, sandbox: E2BSandbox, port: number) {
  const { backend } = context;
  if (!backend.portEndpoint) throw new Error("the emulator's backend has no portEndpoint");
  return backend.portEndpoint(sandbox.data.handle, port, { timeoutMs: ENDPOINT_TIMEOUT_MS });
}

/** The request to the sandbox's server: same method, path, query, headers (less the edge's) and body. */
function send(base: URL, exchange: Exchange, extra: Readonly<Record<string, string>>): Promise<IncomingMessage> {
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(exchange.headers)) {
    if (value !== undefined && !DROPPED_REQUEST.has(name)) headers[name] = value;
  }
  Object.assign(headers, extra);
  if (exchange.body.length > 0) headers["content-length"] = exchange.body.length;
  const basePath = base.pathname.replace(/\/+$/, "");
  const request = (base.protocol === "https:" ? httpsRequest : httpRequest)(base, {
    method: exchange.method,
    path: `${basePath}${exchange.rawPath}`,
    headers,
    signal: exchange.signal,
  });
  return new Promise((resolve, reject) => {
    request.once("response", resolve);
    request.once("error", (error) => reject(new Error(messageOf(error), { cause: error })));
    request.end(exchange.body.length > 0 ? exchange.body : undefined);
  });
}

/**
 * An emulator's sandbox-port traffic: takes it first on every route, serves
 * it where no route matched, and keeps it out of the unknown routes.
 */
export class PortTraffic {
  readonly #context: E2BContext;
  readonly #domain: string;
  /** `<METHOD> <path>` of each request for a sandbox port that matched no emulator route. */
  readonly #unmatched: string[] = [];

  constructor(context: E2BContext, domain: string) {
    this.#context = context;
    this.#domain = domain;
  }

  /**
   * `server`'s route table with port traffic taken first: a request for a
   * sandbox port goes to {@link forwardToPort} whatever its path, so a sandbox
   * server's `/files` or `/sandboxes` never reaches envd or the control plane.
   */
  routes(server: Pick<EmulatorServer, "route">): Pick<EmulatorServer, "route"> {
    return {
      route: (route) =>
        server.route({
          ...route,
          handler: (exchange) => {
            const target = portTarget(exchange, this.#domain);
            return target ? forwardToPort(this.#context, exchange, target) : route.handler(exchange);
          },
        }),
    };
  }

  /** Serves a request no route matched when it is for a sandbox port; `false` when it is not. */
  serveUnmatched(exchange: Exchange): boolean {
    const target = portTarget(exchange, this.#domain);
    if (!target) return false;
    this.#unmatched.push(`${exchange.method} ${exchange.rawPath}`);
    forwardToPort(this.#context, exchange, target).catch(() => exchange.destroy());
    return true;
  }

  /** `unknown` (the log's unmatched requests) less the sandbox-port requests among them. */
  unknownRoutes(unknown: readonly string[]): string[] {
    const left = [...this.#unmatched];
    return unknown.filter((route) => {
      const index = left.indexOf(route);
      if (index >= 0) left.splice(index, 1);
      return index < 0;
    });
  }

  /** Forgets the requests seen (with the request log). */
  reset(): void {
    this.#unmatched.length = 0;
  }
}
