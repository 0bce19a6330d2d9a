/**
 * Credentials, as the Vercel API checks them: the bearer token on every
 * request, the team in `?teamId=`, and the project where a route names one.
 *
 * @module
 */

import type { Exchange } from "../harness/exchange.js";
import type { EmulatorServer } from "../harness/http-server.js";
import type { VercelContext } from "./context.js";
import { badRequest, notFound, replyError } from "./errors.js";

/** A route handler that runs only for requests with the right token and team. */
export type GuardedHandler = (exchange: Exchange) => Promise<void> | void;

/** Register a route whose handler runs only after {@link checkCredentials} passed. */
export function addGuardedRoute(
  server: EmulatorServer,
  context: VercelContext,
  method: string,
  pattern: string,
  handler: GuardedHandler,
): void {
  server.route({
    method,
    pattern,
    handler: (exchange) => (checkCredentials(exchange, context) ? handler(exchange) : undefined),
  });
}

/**
 * True for the accepted `Authorization: Bearer <token>` and `?teamId=`.
 * Otherwise answers 403 `forbidden` the way the Vercel API does
 * (`missingToken` / `invalidToken` flags) and returns false.
 */
export function checkCredentials(exchange: Exchange, context: VercelContext): boolean {
  const authorization = exchange.header("authorization");
  if (authorization === undefined || authorization === "") {
    replyError(exchange, 403, "forbidden", "The request is missing an authentication token", { missingToken: true });
    return false;
  }
  const match = /^Bearer (.+)$/.exec(authorization);
  if (!match || match[1] !== context.token) {
    replyError(exchange, 403, "forbidden", "Not authorized", { invalidToken: true });
    return false;
  }
  const teamId = exchange.url.searchParams.get("teamId");
  if (teamId !== context.teamId) {
    replyError(
      exchange,
      403,
      "forbidden",
      `Not authorized: the token has no access to the scope ${JSON.stringify(teamId ?? "")}`,
    );
    return false;
  }
  return true;
}

/** True when `projectId` names the emulator's project; otherwise answers 400 (absent) or 404 (unknown). */
export function checkProject(exchange: Exchange, context: VercelContext, projectId: unknown): boolean {
  if (projectId === undefined || projectId === null || projectId === "") {
    badRequest(exchange, "projectId is required");
    return false;
  }
  if (projectId !== context.projectId) {
    notFound(exchange, `Project not found: ${String(projectId)}`);
    return false;
  }
  return true;
}
