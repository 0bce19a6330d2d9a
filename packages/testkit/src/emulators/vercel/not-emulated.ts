/**
 * What the emulator does not serve: answered 404 `not_found` and logged in
 * `unknownRoutes` (never a silent 200). Where the missing pieces will go:
 * interactive processes in `interactive.ts`, preview URLs in `exposed-ports.ts`.
 *
 * @module
 */

import type { Exchange } from "../harness/exchange.js";
import type { EmulatorServer } from "../harness/http-server.js";
import { replyError } from "./errors.js";

/**
 * Collections under `/v2/sandboxes/` that the emulator does not serve. They are
 * registered only so that they are not mistaken for a sandbox named
 * `sessions`, `snapshots` or `drives` by `GET /v2/sandboxes/:name`.
 */
const UNSERVED_COLLECTIONS = ["sessions", "snapshots", "drives"] as const;

/** Answer a request for something the emulator does not serve: 404, and an entry in `unknownRoutes`. */
export function answerNotEmulated(exchange: Exchange): void {
  replyError(exchange, 404, "not_found", `${exchange.method} ${exchange.url.pathname} is not emulated`);
}

/** Register the unserved collections, logged as unknown routes like any other unserved request. */
export function registerNotEmulated(server: EmulatorServer): void {
  for (const collection of UNSERVED_COLLECTIONS) {
    const pattern = `/v2/sandboxes/${collection}`;
    server.route({
      method: "GET",
      pattern,
      name: `GET ${pattern}`,
      handler: (exchange) => {
        server.log.addUnknown(exchange.method, exchange.rawPath);
        answerNotEmulated(exchange);
      },
    });
  }
}
