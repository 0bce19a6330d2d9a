import { chmodSync, unlinkSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import type { PortEndpoint } from "@sandport/core";
import { AnchoredDirectory } from "../files/anchored-directory.js";
import { errorCode } from "../files/file-errors.js";
import { closingResponse } from "./closing-response.js";
import type { ConnectionBudget } from "./connection-budget.js";
import {
  admitRequestHead,
  MAX_REQUEST_HEAD_BYTES,
  newPortCredential,
  PORT_CREDENTIAL_HEADER,
  refusal,
  requestHeadLength,
} from "./port-credential.js";
import { TUNNEL_OPEN } from "./port-relay-source.js";

/** How long a client waits for a relay (a command that is starting) before it is turned away. */
const TUNNEL_WAIT_MS = 3_000;
/** Relay connections one client tries (one per command of the sandbox, and their replacements) before giving up. */
const MAX_ATTEMPTS = 64;
/**
 * Client connections one forwarder holds at once (reading a request head,
 * waiting for a relay, or tunnelled); past it, a new one is closed at once.
 * Each request takes a connection of its own (see `admitRequestHead`), so this
 * bounds requests in flight per port: far above what a browser or test opens,
 * low enough that a flood (from a host process, or a sandbox sharing the host's
 * network) cannot use up the runtime's file descriptors.
 */
export const MAX_CLIENTS_PER_PORT = 256;
/** How long a client may take to send its request head before it is answered `408` and closed. */
export const REQUEST_HEAD_TIMEOUT_MS = 30_000;
/** How long a client may keep its connection open once the server's whole answer was sent to it. */
const ANSWERED_LINGER_MS = 30_000;

/**
 * The host side of one exposed port of a sandbox without network: a TCP
 * listener on `127.0.0.1` (the endpoint callers use) and a Unix socket in the
 * sandbox's ports directory that the relays of its commands connect to (see
 * `RELAY_SOURCE`). Each client connection takes an idle relay connection,
 * asks it to open, and is piped through when the relay reached the port;
 * a relay whose command does not listen there is skipped for the next. Both
 * servers are `unref`'d: they never keep the process alive.
 *
 * Every client must send the forwarder's credential (a random value held only
 * in this process's memory) in the {@link PORT_CREDENTIAL_HEADER} header of its
 * request head: otherwise it is answered with a plain `401` (or `400`, `408`,
 * `431`) and closed without a relay being asked. An admitted head reaches the
 * sandbox without the header, and its answer reaches the client saying
 * `Connection: close` (see `closingResponse`). What the sandbox can make this
 * process hold is bounded: relay connections by the sandbox's
 * `ConnectionBudget`, clients by {@link MAX_CLIENTS_PER_PORT}.
 */
export class PortForwarder {
  readonly #tcp: Server;
  readonly #unix: Server;
  readonly #idle = new Set<Socket>();
  readonly #waiting: ((tunnel: Socket | undefined) => void)[] = [];
  readonly #budget: ConnectionBudget;
  readonly #credential = newPortCredential();
  #url: string | undefined;

  private constructor(budget: ConnectionBudget) {
    this.#budget = budget;
    this.#tcp = createServer((client) => void this.#serve(client));
    this.#tcp.maxConnections = MAX_CLIENTS_PER_PORT;
    this.#unix = createServer((tunnel) => this.#offer(tunnel));
    this.#tcp.unref();
    this.#unix.unref();
  }

  /**
   * Starts forwarding: listens on `<portsDirectory>/<port>.sock` (replacing a
   * stale socket of an earlier process) and on an ephemeral TCP port.
   * `budget` bounds the relay connections held (shared by the sandbox's forwarders).
   */
  static async start(portsDirectory: string, port: number, budget: ConnectionBudget): Promise<PortForwarder> {
    const forwarder = new PortForwarder(budget);
    const directory = AnchoredDirectory.open(portsDirectory);
    try {
      // Through the held directory: a short path whatever the root's length (Unix sockets allow 108 bytes).
      const socketPath = directory.entry(`${port}.sock`);
      try {
        unlinkSync(socketPath);
      } catch (error) {
        if (errorCode(error) !== "ENOENT") throw error;
      }
      await listen(forwarder.#unix, socketPath);
      // The relays run as the sandbox user: they may connect, the directory stays read-only to them.
      chmodSync(socketPath, 0o666);
    } finally {
      directory.close();
    }
    await listen(forwarder.#tcp, 0, "127.0.0.1");
    const address = forwarder.#tcp.address();
    if (typeof address !== "object" || address === null) throw new Error("the port forwarder has no address");
    forwarder.#url = `http://127.0.0.1:${address.port}`;
    return forwarder;
  }

  /** `http://127.0.0.1:<host port>`, and the header with the credential every request must carry. */
  get endpoint(): PortEndpoint {
    return { url: this.#url as string, headers: { [PORT_CREDENTIAL_HEADER]: this.#credential } };
  }

  /** Stops listening and drops idle relay connections (piped ones end with their clients). */
  close(): void {
    this.#tcp.close();
    this.#unix.close();
    for (const tunnel of this.#idle) tunnel.destroy();
    this.#idle.clear();
    for (const waiter of this.#waiting.splice(0)) waiter(undefined);
  }

  #offer(tunnel: Socket): void {
    tunnel.on("error", () => tunnel.destroy());
    // Past the sandbox's budget: closed now, rather than held (the relay tries again later).
    if (!this.#budget.take(tunnel)) {
      tunnel.destroy();
      return;
    }
    tunnel.once("close", () => this.#idle.delete(tunnel));
    const waiter = this.#waiting.shift();
    if (waiter) waiter(tunnel);
    else this.#idle.add(tunnel);
  }

  #take(): Promise<Socket | undefined> {
    for (const tunnel of this.#idle) {
      this.#idle.delete(tunnel);
      if (!tunnel.destroyed) return Promise.resolve(tunnel);
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        const index = this.#waiting.indexOf(give);
        if (index >= 0) this.#waiting.splice(index, 1);
        resolve(undefined);
      }, TUNNEL_WAIT_MS);
      timer.unref();
      const give = (tunnel: Socket | undefined) => {
        clearTimeout(timer);
        resolve(tunnel);
      };
      this.#waiting.push(give);
    });
  }

  async #serve(client: Socket): Promise<void> {
    client.on("error", () => client.destroy());
    // Until tunnelled: a client that sends no head, or holds on to a refusal, is let go.
    const timer = setTimeout(
      () => (client.writableEnded ? client.destroy() : client.end(refusal(408), () => client.destroy())),
      REQUEST_HEAD_TIMEOUT_MS,
    );
    timer.unref();
    client.once("close", () => clearTimeout(timer));
    const received = await readHead(client);
    if (typeof received === "number") return refuse(client, received);
    const verdict = admitRequestHead(received.head, this.#credential);
    if (!verdict.admitted) return refuse(client, verdict.status);
    const first = Buffer.concat([verdict.head, received.rest]);
    // Each refusal makes its relay offer a fresh connection: bound the search by time and attempts.
    const until = Date.now() + TUNNEL_WAIT_MS;
    for (let attempt = 0; attempt < MAX_ATTEMPTS && !client.destroyed; attempt++) {
      const tunnel = Date.now() < until ? await this.#take() : undefined;
      if (!tunnel) break;
      const reply = await open(tunnel);
      if (reply === undefined) continue;
      // The client left while the relay was asked: drop its tunnel too, rather than hold it open.
      if (client.destroyed) return void tunnel.destroy();
      clearTimeout(timer);
      // One request per connection: its answer says so, or the client would send its next request here.
      const toClient = verdict.upgrade ? client : closingResponse();
      if (toClient !== client) toClient.pipe(client);
      if (reply.length > 0) toClient.write(reply);
      tunnel.write(first);
      client.pipe(tunnel);
      tunnel.pipe(toClient);
      tunnel.on("close", () => {
        // A tunnel that broke breaks the client; an end reaches it through the pipes, after every byte.
        if (!tunnel.readableEnded) return void client.destroy();
        // A client that holds on to the connection after its whole answer is let go.
        setTimeout(() => client.destroy(), ANSWERED_LINGER_MS).unref();
      });
      client.on("close", () => tunnel.destroy());
      client.resume();
      tunnel.resume();
      return;
    }
    client.destroy();
  }
}

/**
 * Reads a client's request head, which may arrive in pieces: the head and
 * whatever followed it, the socket paused; or the status to refuse it with
 * (`431` past {@link MAX_REQUEST_HEAD_BYTES}; `0` when the client went away).
 */
function readHead(client: Socket): Promise<{ head: Buffer; rest: Buffer } | 431 | 0> {
  return new Promise((resolve) => {
    let received = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const length = requestHeadLength(received);
      if (length === undefined && received.length <= MAX_REQUEST_HEAD_BYTES) return;
      cleanup();
      client.pause();
      if (length === undefined || length > MAX_REQUEST_HEAD_BYTES) resolve(431);
      else resolve({ head: received.subarray(0, length), rest: received.subarray(length) });
    };
    const onClose = () => {
      cleanup();
      resolve(0);
    };
    const cleanup = () => {
      client.off("data", onData);
      client.off("close", onClose);
    };
    client.on("data", onData);
    client.once("close", onClose);
  });
}

/** Answers `status` as plain HTTP and closes, reading (and dropping) what the client still sends meanwhile. */
function refuse(client: Socket, status: 0 | 400 | 401 | 431): void {
  if (status === 0 || client.destroyed) return void client.destroy();
  client.on("data", () => {});
  client.resume();
  client.end(refusal(status));
}

/**
 * Asks a relay connection to open; resolves with whatever data followed its
 * yes (the start of the server's reply), or `undefined` when it said no or closed.
 */
function open(tunnel: Socket): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const onData = (chunk: Buffer) => {
      cleanup();
      tunnel.pause();
      if (chunk[0] === TUNNEL_OPEN) resolve(chunk.subarray(1));
      else {
        tunnel.destroy();
        resolve(undefined);
      }
    };
    const onClose = () => {
      cleanup();
      resolve(undefined);
    };
    const cleanup = () => {
      tunnel.off("data", onData);
      tunnel.off("close", onClose);
    };
    tunnel.on("data", onData);
    tunnel.once("close", onClose);
    tunnel.write(Buffer.from([TUNNEL_OPEN]));
    tunnel.resume();
  });
}

function listen(server: Server, ...target: [string] | [number, string]): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(...(target as [number, string]), () => {
      server.off("error", reject);
      resolve();
    });
  });
}
