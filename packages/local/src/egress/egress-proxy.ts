import { lookup } from "node:dns/promises";
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from "node:http";
import { connect, createServer as createNetServer, type Server as NetServer, type Socket } from "node:net";
import { networkInterfaces } from "node:os";
import type { NetworkPolicy } from "@sandport/core";
import { type EgressResolver, EgressRules } from "./egress-rules.js";
import { SOCKS5_VERSION, serveSocks5 } from "./socks5.js";

/** A connection the egress proxy refused: where the sandbox tried to go and why it may not. */
export interface EgressRefusedEvent {
  /** The kind of event. */
  readonly type: "egress-refused";
  /** The sandbox whose command asked. */
  readonly sandboxId: string;
  /** The host name or address asked for, as the request named it. */
  readonly host: string;
  /** The port asked for. */
  readonly port: number;
  /** The addresses the name resolved to (empty when it did not resolve or was never looked up). */
  readonly addresses: readonly string[];
  /** Why the connection was refused. */
  readonly reason: string;
}

/** What {@link EgressProxy} needs: the sandbox, its policy, how to resolve names, whom to tell of refusals. */
export interface EgressProxyOptions {
  /** The sandbox this proxy serves, for events. */
  readonly sandboxId: string;
  /** `"all"` (any public address) or an allow list. */
  readonly policy: Exclude<NetworkPolicy, "none">;
  /** Resolves names; default: the system resolver (`dns.lookup`, every address). */
  readonly resolve?: EgressResolver;
  /** Told of every refused connection. A throwing listener is ignored (it cannot open a connection). */
  readonly onRefused?: (event: EgressRefusedEvent) => void;
}

/**
 * Connections from the sandbox that one egress proxy holds at once (each may
 * have one upstream connection of its own). Far above what proxy-aware tools
 * open; it stops a sandbox that floods the proxy's socket from using up the
 * runtime's file descriptors (and failing other sandboxes' commands with
 * `EMFILE`): past it, a new connection is closed at once.
 */
export const MAX_EGRESS_CONNECTIONS_PER_SANDBOX = 512;

/** The system resolver: every address `dns.lookup` gives, IPv4 and IPv6. */
export const systemResolver: EgressResolver = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

/**
 * A sandbox's allowlist proxy on the host, listening on a Unix socket that is
 * bound into the sandbox (the sandbox has no network of its own but its
 * loopback). It speaks HTTP: `CONNECT host:port` (HTTPS and any TCP
 * protocol) and absolute-form requests (`GET http://host/path`, plain HTTP);
 * and, on the same socket, SOCKS5 `CONNECT` without authentication (a
 * connection whose first byte is 5; see `serveSocks5`). It resolves names
 * itself and dials only what {@link EgressRules} allows; anything else is
 * answered `403` (SOCKS5: "not allowed by ruleset") and reported to `onRefused`.
 */
export class EgressProxy {
  readonly #options: EgressProxyOptions;
  readonly #rules: EgressRules;
  readonly #http: Server;
  /** What listens: hands each connection to SOCKS5 or to {@link #http} by its first byte. */
  readonly #server: NetServer;
  readonly #sockets = new Set<Socket>();

  /** Builds the proxy; nothing listens until {@link listen}. */
  constructor(options: EgressProxyOptions) {
    this.#options = options;
    this.#rules = new EgressRules(options.policy);
    this.#http = createServer((req, res) => void this.#forward(req, res));
    this.#http.on(
      "connect",
      (req: IncomingMessage, socket: Socket, head: Buffer) => void this.#tunnel(req, socket, head),
    );
    this.#server = createNetServer((socket) => {
      this.#sockets.add(socket);
      socket.on("close", () => this.#sockets.delete(socket));
      socket.on("error", () => socket.destroy());
      socket.once("data", (first: Buffer) => {
        if (first[0] === SOCKS5_VERSION) return serveSocks5(socket, first, (host, port) => this.#decide(host, port));
        socket.pause();
        socket.unshift(first);
        this.#http.emit("connection", socket);
        socket.resume();
      });
    });
    this.#server.maxConnections = MAX_EGRESS_CONNECTIONS_PER_SANDBOX;
  }

  /** Listens on the Unix socket `path` (which must not exist). */
  listen(path: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#server.once("error", reject);
      this.#server.listen(path, () => {
        this.#server.off("error", reject);
        // Never what keeps the process alive (as the port forwarders).
        this.#server.unref();
        resolve();
      });
    });
  }

  /** Stops listening and ends every open connection. */
  close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }

  async #tunnel(req: IncomingMessage, client: Socket, head: Buffer): Promise<void> {
    client.on("error", () => client.destroy());
    const target = splitAuthority(req.url ?? "", 443);
    if (target === undefined) return void client.end("HTTP/1.1 400 Bad Request\r\n\r\n");
    const decision = await this.#decide(target.host, target.port);
    if (!decision.allowed) return void client.end(`HTTP/1.1 403 Forbidden\r\n\r\n${decision.reason}\n`);
    const upstream = connect(target.port, decision.address);
    upstream.once("connect", () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on("error", () =>
      upstream.connecting ? client.end("HTTP/1.1 502 Bad Gateway\r\n\r\n") : client.destroy(),
    );
    client.on("close", () => upstream.destroy());
  }

  async #forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let url: URL;
    try {
      url = new URL(req.url ?? "");
    } catch {
      return void res.writeHead(400).end("an absolute-form URL is required (this is a proxy)\n");
    }
    if (url.protocol !== "http:")
      return void res.writeHead(400).end("only http: is forwarded; use CONNECT for https\n");
    const port = url.port === "" ? 80 : Number(url.port);
    const decision = await this.#decide(url.hostname, port);
    if (!decision.allowed) return void res.writeHead(403).end(`${decision.reason}\n`);
    const headers = { ...req.headers };
    delete headers["proxy-connection"];
    delete headers["proxy-authorization"];
    const upstream = request(
      { host: decision.address, port, method: req.method, path: `${url.pathname}${url.search}`, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => (res.headersSent ? res.destroy() : res.writeHead(502).end("upstream failed\n")));
    // A client that leaves first (a sandbox's timeout, destroy) takes the upstream connection with it.
    res.on("close", () => upstream.destroy());
    req.pipe(upstream);
  }

  async #decide(host: string, port: number) {
    let decision = await this.#rules.decide(host, port, this.#options.resolve ?? systemResolver);
    if (decision.allowed && this.#options.policy === "all" && hostAddresses().has(decision.address)) {
      // A public address of this machine reaches its services bound to every interface, as loopback would.
      const reason = `${decision.address} is an address of this machine, which "all" does not reach`;
      decision = { allowed: false, reason, addresses: [decision.address] };
    }
    if (!decision.allowed) {
      const event: EgressRefusedEvent = {
        type: "egress-refused",
        sandboxId: this.#options.sandboxId,
        host,
        port,
        addresses: decision.addresses,
        reason: decision.reason,
      };
      try {
        this.#options.onRefused?.(event);
      } catch {
        // A listener's failure must not change the answer: the connection stays refused.
      }
    }
    return decision;
  }
}

/** This machine's interface addresses, read afresh (interfaces come and go). */
function hostAddresses(): Set<string> {
  return new Set(
    Object.values(networkInterfaces())
      .flat()
      .map((entry) => entry?.address)
      .filter((address): address is string => address !== undefined),
  );
}

/** `host:port` of a CONNECT target (`[v6]:port` too), or undefined when malformed. */
function splitAuthority(authority: string, fallbackPort: number): { host: string; port: number } | undefined {
  const match = /^(\[[^\]]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(authority);
  if (!match) return undefined;
  const port = match[2] === undefined ? fallbackPort : Number(match[2]);
  if (!(port >= 1 && port <= 65535)) return undefined;
  return { host: (match[1] as string).replace(/^\[|\]$/g, ""), port };
}
