/**
 * E2B control plane (api.e2b.app): create, list, get, kill, timeout, pause and
 * connect/resume, with the request and response shapes of the E2B OpenAPI
 * spec as the e2b SDK uses them.
 *
 * @module
 */

import type { Exchange } from "../harness/exchange.js";
import type { EmulatorServer } from "../harness/http-server.js";
import type { RouteDefinition } from "../harness/router.js";
import type { E2BContext, E2BSandbox } from "./context.js";
import { badRequest, detailJson, sandboxJson } from "./control-plane-json.js";
import { listV1, listV2 } from "./control-plane-list.js";
import { messageOf } from "./errors.js";

/** Longest lifetime E2B accepts (24 h). */
const MAX_TIMEOUT_SECONDS = 86_400;

export function registerControlPlane(server: Pick<EmulatorServer, "route">, context: E2BContext): void {
  const add = (method: string, pattern: string, handler: (exchange: Exchange) => Promise<void> | void) => {
    const route: RouteDefinition = {
      method,
      pattern,
      handler: (exchange) => {
        if (!checkApiKey(exchange, context)) return;
        return handler(exchange);
      },
    };
    server.route(route);
  };

  add("POST", "/v2/sandboxes", (exchange) => create(exchange, context, 300));
  add("POST", "/sandboxes", (exchange) => create(exchange, context, 15));
  add("GET", "/v2/sandboxes", (exchange) => listV2(exchange, context));
  add("GET", "/sandboxes", (exchange) => listV1(exchange, context));
  add("GET", "/sandboxes/:id", (exchange) =>
    withSandbox(exchange, context, (sandbox) => exchange.json(200, detailJson(sandbox, context))),
  );
  add("DELETE", "/sandboxes/:id", (exchange) =>
    withSandbox(exchange, context, (sandbox) => kill(exchange, context, sandbox)),
  );
  add("POST", "/sandboxes/:id/timeout", (exchange) =>
    withSandbox(exchange, context, (sandbox) => setTimeoutRoute(exchange, context, sandbox)),
  );
  add("POST", "/sandboxes/:id/pause", (exchange) =>
    withSandbox(exchange, context, (sandbox) => pause(exchange, context, sandbox)),
  );
  add("POST", "/v2/sandboxes/:id/connect", (exchange) =>
    withSandbox(exchange, context, (sandbox) => connect(exchange, context, sandbox, 300)),
  );
  add("POST", "/sandboxes/:id/connect", (exchange) =>
    withSandbox(exchange, context, (sandbox) => connect(exchange, context, sandbox, undefined)),
  );
  add("POST", "/sandboxes/:id/resume", (exchange) =>
    withSandbox(exchange, context, (sandbox) => resume(exchange, context, sandbox)),
  );
}

function checkApiKey(exchange: Exchange, context: E2BContext): boolean {
  if (exchange.header("x-api-key") === context.apiKey) return true;
  exchange.json(401, { code: 401, message: "Invalid API key, please visit the dashboard to get your API key" });
  return false;
}

function notFound(exchange: Exchange, id: string): void {
  exchange.json(404, { code: 404, message: `sandbox "${id}" doesn't exist or you don't have access to it` });
}

async function withSandbox(
  exchange: Exchange,
  context: E2BContext,
  handler: (sandbox: E2BSandbox) => Promise<void> | void,
): Promise<void> {
  const id = exchange.params.id ?? "";
  const sandbox = context.registry.get(id);
  if (!sandbox) {
    notFound(exchange, id);
    return;
  }
  await handler(sandbox);
}

/** The JSON object body, or `undefined` after answering 400. An empty body is `{}`. */
function readObject(exchange: Exchange): Record<string, unknown> | undefined {
  if (exchange.body.length === 0) return {};
  let value: unknown;
  try {
    value = JSON.parse(exchange.body.toString("utf8"));
  } catch {
    badRequest(exchange, "request body is not valid JSON");
    return undefined;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    badRequest(exchange, "request body must be a JSON object");
    return undefined;
  }
  return value as Record<string, unknown>;
}

/** A string map field, or `undefined` after answering 400. */
function readStringMap(
  exchange: Exchange,
  body: Record<string, unknown>,
  field: string,
): Record<string, string> | undefined {
  const value = body[field];
  if (value === undefined || value === null) return {};
  if (typeof value !== "object" || Array.isArray(value)) {
    badRequest(exchange, `${field} must be an object of strings`);
    return undefined;
  }
  const map: Record<string, string> = {};
  for (const [key, entry] of Object.entries(value)) {
    if (typeof entry !== "string") {
      badRequest(exchange, `${field}.${key} must be a string`);
      return undefined;
    }
    map[key] = entry;
  }
  return map;
}

/** A timeout in seconds, the default when absent, or `undefined` after answering 400. */
function readTimeout(
  exchange: Exchange,
  body: Record<string, unknown>,
  fallback: number | undefined,
): number | undefined {
  const value = body.timeout ?? fallback;
  if (value === undefined) {
    badRequest(exchange, "timeout is required");
    return undefined;
  }
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
    badRequest(exchange, "timeout must be a non-negative integer number of seconds");
    return undefined;
  }
  if (value > MAX_TIMEOUT_SECONDS) {
    badRequest(exchange, `Timeout cannot be greater than ${MAX_TIMEOUT_SECONDS / 3600} hours`);
    return undefined;
  }
  return value;
}

async function create(exchange: Exchange, context: E2BContext, defaultTimeout: number): Promise<void> {
  const body = readObject(exchange);
  if (!body) return;
  if (typeof body.templateID !== "string" || body.templateID === "") {
    badRequest(exchange, "templateID is required");
    return;
  }
  const metadata = readStringMap(exchange, body, "metadata");
  if (!metadata) return;
  const envVars = readStringMap(exchange, body, "envVars");
  if (!envVars) return;
  const timeoutSeconds = readTimeout(exchange, body, defaultTimeout);
  if (timeoutSeconds === undefined) return;
  if (body.autoPause !== undefined && typeof body.autoPause !== "boolean") {
    badRequest(exchange, "autoPause must be a boolean");
    return;
  }
  const network = (body.network ?? {}) as Record<string, unknown>;
  if (typeof network !== "object" || Array.isArray(network)) {
    badRequest(exchange, "network must be an object");
    return;
  }
  if (network.allowPublicTraffic !== undefined && typeof network.allowPublicTraffic !== "boolean") {
    badRequest(exchange, "network.allowPublicTraffic must be a boolean");
    return;
  }
  let sandbox: E2BSandbox;
  try {
    sandbox = await context.createSandbox({
      templateId: body.templateID,
      metadata,
      envVars,
      timeoutSeconds,
      autoPause: body.autoPause === true,
      network: body.allow_internet_access !== false,
      allowPublicTraffic: network.allowPublicTraffic !== false,
      foreign: false,
    });
  } catch (error) {
    exchange.json(500, { code: 500, message: `sandbox could not be created: ${messageOf(error)}` });
    return;
  }
  exchange.json(201, sandboxJson(sandbox, context));
}

async function kill(exchange: Exchange, context: E2BContext, sandbox: E2BSandbox): Promise<void> {
  try {
    await context.killSandbox(sandbox);
  } catch (error) {
    exchange.json(500, {
      code: 500,
      message: `sandbox removed but its workspace was not destroyed: ${messageOf(error)}`,
    });
    return;
  }
  exchange.reply(204);
}

function setTimeoutRoute(exchange: Exchange, context: E2BContext, sandbox: E2BSandbox): void {
  const body = readObject(exchange);
  if (!body) return;
  const timeoutSeconds = readTimeout(exchange, body, undefined);
  if (timeoutSeconds === undefined) return;
  context.setEndAt(sandbox, Date.now() + timeoutSeconds * 1000);
  exchange.reply(204);
}

async function pause(exchange: Exchange, context: E2BContext, sandbox: E2BSandbox): Promise<void> {
  const body = readObject(exchange);
  if (!body) return;
  if (sandbox.state === "paused") {
    exchange.json(409, { code: 409, message: `sandbox "${sandbox.id}" is already paused` });
    return;
  }
  await context.pauseSandbox(sandbox);
  exchange.reply(204);
}

function connect(
  exchange: Exchange,
  context: E2BContext,
  sandbox: E2BSandbox,
  defaultTimeout: number | undefined,
): void {
  const body = readObject(exchange);
  if (!body) return;
  const timeoutSeconds = readTimeout(exchange, body, defaultTimeout);
  if (timeoutSeconds === undefined) return;
  if (sandbox.state === "paused") {
    context.resumeSandbox(sandbox, timeoutSeconds);
    exchange.json(201, sandboxJson(sandbox, context));
    return;
  }
  // Connecting to a running sandbox only ever extends its life.
  context.setEndAt(sandbox, Math.max(sandbox.data.endAt, Date.now() + timeoutSeconds * 1000));
  exchange.json(200, sandboxJson(sandbox, context));
}

function resume(exchange: Exchange, context: E2BContext, sandbox: E2BSandbox): void {
  const body = readObject(exchange);
  if (!body) return;
  const timeoutSeconds = readTimeout(exchange, body, 15);
  if (timeoutSeconds === undefined) return;
  if (sandbox.state !== "paused") {
    exchange.json(409, { code: 409, message: `sandbox "${sandbox.id}" is already running` });
    return;
  }
  context.resumeSandbox(sandbox, timeoutSeconds);
  exchange.json(201, sandboxJson(sandbox, context));
}
