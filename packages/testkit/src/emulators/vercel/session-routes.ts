/**
 * One session: `GET /v2/sandboxes/sessions/:sessionId`, `POST .../stop` and
 * `POST .../extend-timeout`.
 *
 * @module
 */

import type { Exchange } from "../harness/exchange.js";
import type { EmulatorServer } from "../harness/http-server.js";
import { addGuardedRoute } from "./auth.js";
import type { VercelContext } from "./context.js";
import { badRequest, replyFailure } from "./errors.js";
import { routesFor } from "./exposed-ports.js";
import { sandboxJson, sessionJson } from "./payloads.js";
import { readInteger, readObject } from "./request-body.js";
import { MAX_TIMEOUT_MS } from "./sandbox-create.js";
import { withSession } from "./session-guard.js";

/** Register the session routes; every one needs the token and the team. */
export function registerSessionRoutes(server: EmulatorServer, context: VercelContext): void {
  const add = (method: string, pattern: string, handler: (exchange: Exchange) => Promise<void> | void) =>
    addGuardedRoute(server, context, method, pattern, handler);

  add("GET", "/v2/sandboxes/sessions/:sessionId", (exchange) =>
    withSession(
      exchange,
      context,
      ({ sandbox, session }) => exchange.json(200, { session: sessionJson(session), routes: routesFor(sandbox) }),
      { stoppedToo: true },
    ),
  );

  // Stopping a stopped session is not an error: it answers the final state again.
  add("POST", "/v2/sandboxes/sessions/:sessionId/stop", (exchange) =>
    withSession(
      exchange,
      context,
      async ({ sandbox, session }) => {
        if (session === sandbox.data.session && session.status === "running") {
          try {
            await context.sandboxes.stop(sandbox);
          } catch (error) {
            replyFailure(exchange, error, "the session stopped but its workspace was not released: ");
            return;
          }
        }
        exchange.json(200, { session: sessionJson(session), sandbox: sandboxJson(sandbox) });
      },
      { stoppedToo: true },
    ),
  );

  add("POST", "/v2/sandboxes/sessions/:sessionId/extend-timeout", (exchange) =>
    withSession(exchange, context, ({ session }) => {
      const body = readObject(exchange);
      if (!body) return;
      const duration = readInteger(exchange, body.duration, "duration", { min: 1, max: MAX_TIMEOUT_MS });
      if (duration === undefined) return;
      if (session.timeout + duration > MAX_TIMEOUT_MS) {
        badRequest(exchange, `a session can run for at most ${MAX_TIMEOUT_MS} ms`);
        return;
      }
      context.sandboxes.extend(session, duration);
      exchange.json(200, { session: sessionJson(session) });
    }),
  );
}
