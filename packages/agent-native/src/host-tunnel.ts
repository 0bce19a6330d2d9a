import { type PortEndpoint, SandportError } from "@sandport/core";
import { deadlineSignal } from "@sandport/core/adapter";

/** A module's bridge request, as the relay hands it over. */
interface RelayedRequest {
  readonly id: string;
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string | string[] | undefined>;
  /** Base64. */
  readonly body: string;
}

/** Headers that describe one hop's connection, not the request: never forwarded. */
const HOP_HEADERS = new Set(["host", "connection", "content-length", "transfer-encoding", "keep-alive"]);

/**
 * The host side of the bridge tunnel: long-polls the relay in the sandbox
 * (through the runtime's port endpoint) for the module's requests, sends each
 * to the parent's bridge on the host's 127.0.0.1:bridgePort, and posts the
 * answer back. Several polls run at once so the module's calls can overlap.
 */
export class HostTunnel {
  readonly #endpoint: PortEndpoint;
  readonly #token: string;
  readonly #bridgePort: number;
  readonly #stopped = new AbortController();
  readonly #loops: Promise<void>[] = [];

  constructor(endpoint: PortEndpoint, token: string, bridgePort: number) {
    this.#endpoint = endpoint;
    this.#token = token;
    this.#bridgePort = bridgePort;
  }

  /** Waits until the relay answers (it has just been started), for at most `timeoutMs`, or until stopped. */
  async ready(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let last: unknown;
    while (Date.now() < deadline && !this.#stopped.signal.aborted) {
      try {
        const signal = deadlineSignal(2_000, this.#stopped.signal);
        const response = await this.#fetch("/ready", { signal });
        if (response.ok) return;
        last = new Error(`HTTP ${response.status}`);
      } catch (error) {
        last = error;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    if (this.#stopped.signal.aborted) throw this.#stopped.signal.reason;
    throw new SandportError({
      code: "PROVIDER_UNAVAILABLE",
      provider: "agent-native",
      message: `the bridge relay in the sandbox did not answer within ${timeoutMs} ms`,
      cause: last,
    });
  }

  /** Starts `pollers` concurrent polls (none once stopped). */
  start(pollers = 4): void {
    if (this.#stopped.signal.aborted) return;
    for (let index = 0; index < pollers; index++) this.#loops.push(this.#poll());
  }

  /** Stops polling and waits for the polls to end. */
  async stop(): Promise<void> {
    this.#stopped.abort();
    await Promise.allSettled(this.#loops);
  }

  async #poll(): Promise<void> {
    while (!this.#stopped.signal.aborted) {
      let request: RelayedRequest;
      try {
        const response = await this.#fetch("/next", { signal: this.#stopped.signal });
        if (response.status !== 200) {
          await response.body?.cancel();
          continue;
        }
        request = (await response.json()) as RelayedRequest;
      } catch {
        if (this.#stopped.signal.aborted) return;
        await new Promise((resolve) => setTimeout(resolve, 100));
        continue;
      }
      await this.#forward(request);
    }
  }

  async #forward(request: RelayedRequest): Promise<void> {
    let answer: { status: number; headers: Record<string, string>; body: string };
    try {
      const headers = new Headers();
      for (const [name, value] of Object.entries(request.headers)) {
        if (value === undefined || HOP_HEADERS.has(name)) continue;
        headers.set(name, Array.isArray(value) ? value.join(", ") : value);
      }
      const bodyless = request.method === "GET" || request.method === "HEAD";
      const response = await fetch(`http://127.0.0.1:${this.#bridgePort}${request.path}`, {
        method: request.method,
        headers,
        ...(bodyless ? {} : { body: Buffer.from(request.body, "base64") }),
        signal: this.#stopped.signal,
      });
      const body = Buffer.from(await response.arrayBuffer()).toString("base64");
      const contentType = response.headers.get("content-type");
      answer = { status: response.status, headers: contentType ? { "content-type": contentType } : {}, body };
    } catch (error) {
      const message = JSON.stringify({ error: `the host bridge could not be reached: ${String(error)}` });
      answer = {
        status: 502,
        headers: { "content-type": "application/json" },
        body: Buffer.from(message).toString("base64"),
      };
    }
    try {
      const response = await this.#fetch(`/reply/${request.id}`, {
        method: "POST",
        body: JSON.stringify(answer),
        signal: this.#stopped.signal,
      });
      await response.body?.cancel();
    } catch {
      // The run is over, or the module stopped waiting: nobody is left to answer.
    }
  }

  #fetch(path: string, init: RequestInit): Promise<Response> {
    return fetch(`${this.#endpoint.url}${path}`, {
      ...init,
      headers: { ...this.#endpoint.headers, "x-sandport-tunnel": this.#token },
    });
  }
}
