import { createServer, type Server, type Socket } from "node:net";
import type { ConnectionInjector } from "@grpc/grpc-js";

/** A connection accepted by one of the listeners. */
export interface AcceptedConnection<Name extends string> {
  readonly listener: Name;
  readonly socket: Socket;
}

/**
 * TCP listeners on 127.0.0.1 whose connections are handed to grpc-js. Keeps
 * every socket by its peer address, so a call (which knows its peer) can find
 * the connection it arrived on.
 */
export class Listeners<Name extends string> {
  readonly #servers = new Map<Name, Server>();
  readonly #connections = new Map<string, AcceptedConnection<Name>>();
  readonly #injector: ConnectionInjector;

  private constructor(injector: ConnectionInjector) {
    this.#injector = injector;
  }

  /** Listen on an ephemeral port per name. */
  static async open<Name extends string>(
    names: readonly Name[],
    injector: ConnectionInjector,
  ): Promise<Listeners<Name>> {
    const listeners = new Listeners<Name>(injector);
    try {
      for (const name of names) await listeners.#listen(name);
    } catch (error) {
      await listeners.close();
      throw error;
    }
    return listeners;
  }

  /** The port a listener is bound to. */
  port(name: Name): number {
    const address = this.#servers.get(name)?.address();
    if (address === null || address === undefined || typeof address === "string")
      throw new Error(`${name} is not listening`);
    return address.port;
  }

  /** The connection of a call's peer (`grpc-js` `getPeer()`: `127.0.0.1:<port>`). */
  connectionOf(peer: string): AcceptedConnection<Name> | undefined {
    return this.#connections.get(peer);
  }

  /** Stop listening and destroy every connection. */
  async close(): Promise<void> {
    const closed = [...this.#servers.values()].map(
      (server) => new Promise<void>((resolve) => server.close(() => resolve())),
    );
    for (const { socket } of this.#connections.values()) socket.destroy();
    this.#injector.destroy();
    await Promise.all(closed);
  }

  async #listen(name: Name): Promise<void> {
    const server = createServer((socket) => {
      const peer = `${socket.remoteAddress}:${socket.remotePort}`;
      this.#connections.set(peer, { listener: name, socket });
      socket.once("close", () => this.#connections.delete(peer));
      this.#injector.injectConnection(socket);
    });
    this.#servers.set(name, server);
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => {
        server.off("error", reject);
        resolve();
      });
    });
  }
}
