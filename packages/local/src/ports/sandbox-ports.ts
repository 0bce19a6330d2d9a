import { resolve } from "node:path";
import { ConnectionBudget } from "./connection-budget.js";
import { PortForwarder } from "./port-forwarder.js";

/**
 * Relay connections (idle, offered by the relays of a sandbox's commands, or
 * carrying a client's connection) that one sandbox may have this process hold
 * at once, over all its ports. A relay keeps one idle connection per declared
 * port and command, so this is far above normal use (64 ports declared at most);
 * it stops a sandbox that floods its relay sockets from using up the runtime's
 * file descriptors (and so failing other sandboxes' commands with `EMFILE`):
 * past it, a new relay connection is closed at once.
 */
export const MAX_RELAY_CONNECTIONS_PER_SANDBOX = 512;

/** The port forwarders this process serves, by the sandbox's ports directory: shared by every runtime instance. */
const served = new Map<string, SandboxPorts>();

/**
 * The forwarders of one sandbox's declared ports in this process, with the
 * budget of relay connections they share. Runtime instances of one process
 * share them: a second instance over the same root (`getById`, then
 * `portEndpoint`) gets the same endpoint, credential included, rather than a
 * second forwarder that would take the relays' socket from the first.
 */
export class SandboxPorts {
  readonly #directory: string;
  readonly #budget = new ConnectionBudget(MAX_RELAY_CONNECTIONS_PER_SANDBOX);
  readonly #forwarders = new Map<number, Promise<PortForwarder>>();

  private constructor(directory: string) {
    this.#directory = directory;
  }

  /** The ports of the sandbox whose ports directory is `directory`, created on first use. */
  static of(directory: string): SandboxPorts {
    const key = resolve(directory);
    let ports = served.get(key);
    if (!ports) {
      ports = new SandboxPorts(key);
      served.set(key, ports);
    }
    return ports;
  }

  /** Closes the forwarders of the sandbox whose ports directory is `directory` (gone, or being destroyed). */
  static async close(directory: string): Promise<void> {
    const key = resolve(directory);
    const ports = served.get(key);
    served.delete(key);
    if (!ports) return;
    for (const forwarder of ports.#forwarders.values()) {
      await forwarder.then((started) => started.close()).catch(() => {});
    }
  }

  /** The forwarder of `port`, started on first use (a failed start is forgotten, so the next call tries again). */
  forwarder(port: number): Promise<PortForwarder> {
    let forwarder = this.#forwarders.get(port);
    if (!forwarder) {
      forwarder = PortForwarder.start(this.#directory, port, this.#budget);
      const started = forwarder;
      started.catch(() => {
        if (this.#forwarders.get(port) === started) this.#forwarders.delete(port);
      });
      this.#forwarders.set(port, started);
    }
    return forwarder;
  }
}
