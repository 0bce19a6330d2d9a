import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** The header the relay asks the probe with. */
export const PROBE_HEADER = "x-sandport-probe";

/**
 * A one-run beacon on the host's 127.0.0.1 that tells whether a sandbox
 * shares the host's loopback (`LocalRuntime` with `isolation: "none"`, or with
 * `hostNetwork` and a launch with `network: true`). There the host's own bridge already holds
 * 127.0.0.1:bridgePort, so the relay cannot listen on it, and need not: the
 * module reaches the bridge directly. The relay asks the beacon's port on its
 * own 127.0.0.1 before listening: an answer carrying {@link answer} means the
 * host's loopback, and {@link reached} tells the host so. Anywhere else the
 * port is the sandbox's own and refuses, or answers something else.
 */
export class LoopbackProbe {
  /** The beacon's port on the host's 127.0.0.1. */
  readonly port: number;
  /** What the relay sends in {@link PROBE_HEADER}. */
  readonly question: string;
  /** What the beacon answers, which the relay checks. */
  readonly answer: string;
  /** Resolves once the relay asked, from a sandbox that shares the host's loopback. */
  readonly reached: Promise<void>;
  readonly #server: Server;

  private constructor(server: Server, question: string, answer: string, reached: Promise<void>) {
    this.#server = server;
    this.port = (server.address() as AddressInfo).port;
    this.question = question;
    this.answer = answer;
    this.reached = reached;
  }

  /** Opens a beacon on an ephemeral port of the host's 127.0.0.1. */
  static async open(): Promise<LoopbackProbe> {
    const question = randomBytes(16).toString("hex");
    const answer = randomBytes(16).toString("hex");
    let reach: () => void = () => undefined;
    const reached = new Promise<void>((resolve) => {
      reach = resolve;
    });
    const server = createServer((request, response) => {
      if (request.method !== "GET" || request.headers[PROBE_HEADER] !== question) {
        response.writeHead(404).end();
        return;
      }
      response.writeHead(200, { "content-type": "text/plain" }).end(answer);
      reach();
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
    return new LoopbackProbe(server, question, answer, reached);
  }

  /** Closes the beacon. */
  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
