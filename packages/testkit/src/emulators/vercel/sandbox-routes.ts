/**
 * The sandbox collection: create, list, get (with `resume`), and delete, all
 * addressed by name. The SDK never sends a sandbox id: names are the key.
 *
 * @module
 */

import type { Exchange } from "../harness/exchange.js";
import type { EmulatorServer } from "../harness/http-server.js";
import { addGuardedRoute, checkProject } from "./auth.js";
import type { VercelContext, VercelSandbox } from "./context.js";
import { notFound, replyFailure } from "./errors.js";
import { sandboxAndSessionJson, sandboxJson } from "./payloads.js";
import { createRoute } from "./sandbox-create.js";
import { listRoute } from "./sandbox-list.js";

/** Register create, list, get and delete; every one needs the token, the team and the project. */
export function registerSandboxRoutes(server: EmulatorServer, context: VercelContext): void {
  const add = (method: string, pattern: string, handler: (exchange: Exchange) => Promise<void> | void) =>
    addGuardedRoute(server, context, method, pattern, handler);

  add("POST", "/v3/sandboxes", (exchange) => createRoute(exchange, context, false));
  add("POST", "/v2/sandboxes", (exchange) => createRoute(exchange, context, true));
  add("GET", "/v2/sandboxes", (exchange) => listRoute(exchange, context));
  add("GET", "/v2/sandboxes/:name", (exchange) =>
    withSandbox(exchange, context, (sandbox) => getRoute(exchange, context, sandbox)),
  );
  add("DELETE", "/v2/sandboxes/:name", (exchange) =>
    withSandbox(exchange, context, (sandbox) => deleteRoute(exchange, context, sandbox)),
  );
}

/** Runs `handler` with the named sandbox of the request's project; answers 404 for an unknown name. */
async function withSandbox(
  exchange: Exchange,
  context: VercelContext,
  handler: (sandbox: VercelSandbox) => Promise<void> | void,
): Promise<void> {
  const name = exchange.params.name ?? "";
  if (!checkProject(exchange, context, exchange.url.searchParams.get("projectId"))) return;
  const sandbox = context.registry.get(name);
  if (!sandbox) {
    notFound(exchange, `Sandbox not found: ${name}`);
    return;
  }
  await handler(sandbox);
}

/** `?resume=true` starts a new session on a stopped sandbox; without it the current session is reported as it is. */
async function getRoute(exchange: Exchange, context: VercelContext, sandbox: VercelSandbox): Promise<void> {
  const resume = exchange.url.searchParams.get("resume") === "true";
  const resumed = resume && sandbox.data.session.status !== "running";
  if (resumed) {
    try {
      await context.sandboxes.resume(sandbox);
    } catch (error) {
      replyFailure(exchange, error, "sandbox could not be resumed: ");
      return;
    }
  }
  exchange.json(200, sandboxAndSessionJson(sandbox, resumed));
}

async function deleteRoute(exchange: Exchange, context: VercelContext, sandbox: VercelSandbox): Promise<void> {
  try {
    await context.sandboxes.delete(sandbox);
  } catch (error) {
    replyFailure(exchange, error, "sandbox removed but its workspace was not destroyed: ");
    return;
  }
  exchange.json(200, { sandbox: sandboxJson(sandbox) });
}
