/**
 * Preview links: `GET /api/sandbox/:id/ports/:port/preview-url` answers
 * `{ sandboxId, url, token }`, and `url` leads to the port inside the
 * sandbox. Daytona serves every preview from its own host
 * (`https://<port>-<id>.proxy.daytona.work`); the emulator gives each
 * sandbox and port its own HTTP listener on 127.0.0.1 instead, which checks
 * the `x-daytona-preview-token` header (unless the sandbox is public) and
 * forwards the request to the backend's endpoint for that port
 * (`portEndpoint`). The token is one per sandbox, as the SDK assumes when it
 * uses port 1's token for the whole sandbox. Nothing listening on the port
 * is answered 502. Preview traffic is not in the emulator's request log: it
 * goes to the sandbox, not to Daytona's API.
 *
 * @module
 */

import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { SandboxRuntime } from "@sandport/core";
import { forwardToPort, listen, HOP_BY_HOP as SHARED_HOP_BY_HOP, stop } from "../harness/port-listeners.js";
import type { DaytonaSandbox } from "./context.js";

/** The header that carries a private sandbox's preview token. */
export const PREVIEW_TOKEN_HEADER = "x-daytona-preview-token";

/** Headers that belong to one hop and are not forwarded: the proxy's own, and the preview token. */
const HOP_BY_HOP: ReadonlySet<string> = new Set([
  ...SHARED_HOP_BY_HOP,
  "proxy-authenticate",
  "proxy-authorization",
  PREVIEW_TOKEN_HEADER,
]);

/** What `preview-url` answers. */
export interface PreviewLink {
  readonly sandboxId: string;
  readonly url: string;
  readonly token: string;
}

/** The preview listeners of one emulator. */
export class PreviewProxies {
  readonly #backend: SandboxRuntime;
  readonly #listeners = new Map<string, Promise<Server>>();
  readonly #tokens = new Map<string, string>();

  constructor(backend: SandboxRuntime) {
    this.#backend = backend;
  }

  /** The link for `port` of `sandbox`, starting its listener on first use. */
  async link(sandbox: DaytonaSandbox, port: number): Promise<PreviewLink> {
    const key = `${sandbox.id}:${port}`;
    let listening = this.#listeners.get(key);
    if (!listening) {
      listening = listen(createServer((request, response) => void this.#forward(sandbox, port, request, response)));
      this.#listeners.set(key, listening);
    }
    const address = (await listening).address() as AddressInfo;
    return { sandboxId: sandbox.id, url: `http://127.0.0.1:${address.port}`, token: this.#tokenOf(sandbox.id) };
  }

  /** Stops the listeners of one sandbox (it was deleted). */
  async close(sandboxId: string): Promise<void> {
    this.#tokens.delete(sandboxId);
    const closing: Promise<void>[] = [];
    for (const [key, listening] of this.#listeners) {
      if (!key.startsWith(`${sandboxId}:`)) continue;
      this.#listeners.delete(key);
      closing.push(listening.then(stop));
    }
    await Promise.all(closing);
  }

  /** Stops every listener. */
  async closeAll(): Promise<void> {
    const all = [...this.#listeners.values()];
    this.#listeners.clear();
    this.#tokens.clear();
    await Promise.all(all.map((listening) => listening.then(stop)));
  }

  #tokenOf(sandboxId: string): string {
    let token = this.#tokens.get(sandboxId);
    if (token === undefined) {
      token = randomBytes(16).toString("hex");
      this.#tokens.set(sandboxId, token);
    }
    return token;
  }

  async #forward(sandbox: DaytonaSandbox, port: number, request: IncomingMessage, response: ServerResponse) {
    const refuse = (status: number, message: string) => {
      response
        .writeHead(status, { "content-type": "application/json" })
        .end(JSON.stringify({ statusCode: status, message }));
    };
    if (!sandbox.data.public && request.headers[PREVIEW_TOKEN_HEADER] !== this.#tokens.get(sandbox.id)) {
      refuse(401, "a preview of a private sandbox needs its token in x-daytona-preview-token");
      return;
    }
    const handle = sandbox.data.handle;
    if (sandbox.state !== "started" || !handle || !this.#backend.portEndpoint) {
      refuse(502, `sandbox ${sandbox.id} is not started`);
      return;
    }
    await forwardToPort(this.#backend, handle, port, request, response, refuse, HOP_BY_HOP);
  }
}
