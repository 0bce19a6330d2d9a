import { chmodSync, unlinkSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { AnchoredDirectory } from "../files/anchored-directory.js";
import { errorCode } from "../files/file-errors.js";
import { TUNNEL_OPEN } from "./port-relay-source.js";

/** How long a client waits for a relay (a command that is starting) before it is turned away. */
const TUNNEL_WAIT_MS = 3_000;
/** Relay connections one client tries (one per command of the sandbox, and their replacements) before giving up. */
const MAX_ATTEMPTS = 64;

/**
 * The host side of one exposed port of a sandbox without network: a TCP
 * listener on `127.0.0.1` (the endpoint callers use) and a Unix socket in the
 * sandbox's ports directory that the relays of its commands connect to (see
 * `RELAY_SOURCE`). Each client connection takes an idle relay connection,
 * asks it to open, and is piped through when the relay reached the port;
 * a relay whose command does not listen there is skipped for the next. Both
 * servers are `unref`'d: they never keep the process alive.
 */
export class PortForwarder {
  readonly #tcp: Server;
  readonly #unix: Server;
  readonly #idle = new Set<Socket>();
  readonly #waiting: ((tunnel: Socket | undefined) => void)[] = [];
  #url: string | undefined;

  private constructor() {
    this.#tcp = createServer((client) => void this.#serve(client));
    this.#unix = createServer((tunnel) => this.#offer(tunnel));
    this.#tcp.unref();
    this.#unix.unref();
  }

  /**
   * Starts forwarding: listens on `<portsDirectory>/<port>.sock` (replacing a
   * stale socket of an earlier process) and on an ephemeral TCP port.
   */
  static async start(portsDirectory: string, port: number): Promise<PortForwarder> {
    const forwarder = new PortForwarder();
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

  /** `http://127.0.0.1:<host port>`. */
  get url(): string {
    return this.#url as string;
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
    client.pause();
    client.on("error", () => client.destroy());
    // Each refusal makes its relay offer a fresh connection: bound the search by time and attempts.
    const until = Date.now() + TUNNEL_WAIT_MS;
    for (let attempt = 0; attempt < MAX_ATTEMPTS && !client.destroyed; attempt++) {
      const tunnel = Date.now() < until ? await this.#take() : undefined;
      if (!tunnel) break;
      const reply = await open(tunnel);
      if (reply === undefined) continue;
      if (reply.length > 0) client.write(reply);
      client.pipe(tunnel);
      tunnel.pipe(client);
      tunnel.on("close", () => client.destroy());
      client.on("close", () => tunnel.destroy());
      client.resume();
      tunnel.resume();
      return;
    }
    client.destroy();
  }
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
