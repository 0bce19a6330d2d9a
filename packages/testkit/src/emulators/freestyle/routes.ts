/**
 * How every Freestyle API route runs: credentials first, then the handler,
 * whose reply is sent inline or, for a client that asked for backgrounding
 * and work that outlives the threshold, stored for polling.
 *
 * @module
 */

import type { Exchange } from "../harness/exchange.js";
import type { EmulatorServer } from "../harness/http-server.js";
import { type ApiReply, apiErrorReply, errorReplyOf, readJsonObject, send, vmNotFound } from "./api.js";
import { checkCredentials } from "./auth.js";
import type { FreestyleContext, FreestyleVm } from "./context.js";

/** One authenticated API call, as a handler sees it. */
export interface ApiCall {
  readonly exchange: Exchange;
  /** Path parameters of the matched route. */
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  /**
   * Aborted when the work should stop: the client went away (an inline call),
   * or the emulator stops (a call the client let go to the background, whose
   * work outlives its connection as on the real API).
   */
  readonly signal: AbortSignal;
  /** The body as a JSON object (`{}` when empty); throws `BAD_REQUEST` otherwise. */
  json(): Record<string, unknown>;
}

/** Does the work of one route and resolves its reply; may throw `ApiError`. */
export type ApiHandler = (call: ApiCall) => Promise<ApiReply> | ApiReply;

/** Add an authenticated route whose errors have the API's `{ code, message }` shape. */
export function addApiRoute(
  server: EmulatorServer,
  context: FreestyleContext,
  method: string,
  pattern: string,
  handler: ApiHandler,
): void {
  server.route({
    method,
    pattern,
    errorReply: apiErrorReply,
    handler: async (exchange) => {
      const refused = checkCredentials(exchange, context.apiKey);
      if (refused) {
        send(exchange, errorReplyOf(refused));
        return;
      }
      const threshold = context.background.thresholdOf(exchange);
      const call: ApiCall = {
        exchange,
        params: exchange.params,
        query: exchange.url.searchParams,
        signal: threshold === undefined ? exchange.signal : context.stopSignal,
        json: () => readJsonObject(exchange.body),
      };
      const work = (async () => handler(call))().catch((error: unknown) => errorReplyOf(error));
      if (threshold === undefined) send(exchange, await work);
      else await context.background.answer(exchange, work, threshold);
    },
  });
}

/** The VM a route's `:id` names (an id or a slug). Throws 404 `VM_NOT_FOUND`. */
export function vmOf(call: ApiCall, context: FreestyleContext): FreestyleVm {
  const idOrSlug = call.params.id ?? "";
  const vm = context.findVm(idOrSlug);
  if (!vm) throw vmNotFound(idOrSlug);
  return vm;
}
