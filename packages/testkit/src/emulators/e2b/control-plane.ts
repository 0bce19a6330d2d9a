/**
 * E2B control plane (api.e2b.app): create, list, get, kill, timeout, pause,
 * connect/resume (and, in their own modules, snapshots and fork), with the request and response shapes of the E2B OpenAPI
 * spec as the e2b SDK uses them.
 *
 * @module
 */

import type { Exchange } from "../harness/exchange.js";
import type { EmulatorServer } from "../harness/http-server.js";
import type { RouteDefinition } from "../harness/router.js";
import type { E2BContext, E2BSandbox } from "./context.js";
import { forkSandbox } from "./control-plane-fork.js";
import { badRequest, detailJson, sandboxJson, validationError } from "./control-plane-json.js";
import { listV1, listV2 } from "./control-plane-list.js";
import { createSnapshot, deleteSnapshotTemplate, listSnapshots } from "./control-plane-snapshots.js";
import { readEgress } from "./egress.js";
import { messageOf } from "./errors.js";

/** Longest lifetime E2B accepts: a Pro team's `MaxLengthHours` (24). */
const MAX_LENGTH_HOURS = 24;
const MAX_TIMEOUT_SECONDS = MAX_LENGTH_HOURS * 3600;

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
  // The request validator refuses a malformed body before the handler looks the sandbox up.
  add("POST", "/sandboxes/:id/timeout", (exchange) => setTimeoutRoute(exchange, context));
  add("POST", "/sandboxes/:id/pause", (exchange) => pause(exchange, context));
  add("POST", "/v2/sandboxes/:id/connect", (exchange) => connect(exchange, context, 300));
  add("POST", "/sandboxes/:id/connect", (exchange) => connect(exchange, context, undefined));
  add("POST", "/sandboxes/:id/resume", (exchange) => resume(exchange, context));
  add("POST", "/sandboxes/:id/snapshots", (exchange) => createSnapshot(exchange, context));
  add("GET", "/snapshots", (exchange) => listSnapshots(exchange, context));
  add("POST", "/sandboxes/:id/fork", (exchange) => forkSandbox(exchange, context));
  add("DELETE", "/templates/:id", (exchange) => deleteSnapshotTemplate(exchange, context));
}

function checkApiKey(exchange: Exchange, context: E2BContext): boolean {
  if (exchange.header("x-api-key") === context.apiKey) return true;
  exchange.json(401, { code: 401, message: "Invalid API key, please visit the dashboard to get your API key" });
  return false;
}

/** Answer 404 with E2B's message for a sandbox that does not exist (`utils.SandboxNotFoundMsg`). */
export function notFound(exchange: Exchange, id: string): void {
  exchange.json(404, {
    code: 404,
    message: `Sandbox ${JSON.stringify(id)} doesn't exist or you don't have access to it`,
  });
}

/** The sandbox named by the path, or `undefined` after answering 404. */
function lookUp(exchange: Exchange, context: E2BContext): E2BSandbox | undefined {
  const id = exchange.params.id ?? "";
  const sandbox = context.registry.get(id);
  if (!sandbox) notFound(exchange, id);
  return sandbox;
}

async function withSandbox(
  exchange: Exchange,
  context: E2BContext,
  handler: (sandbox: E2BSandbox) => Promise<void> | void,
): Promise<void> {
  const sandbox = lookUp(exchange, context);
  if (sandbox) await handler(sandbox);
}

/**
 * The JSON object body, or `undefined` after answering 400. An empty body is `{}`
 * where the spec makes the body optional, and refused where it is `required: true`.
 */
export function readObject(exchange: Exchange, required = false): Record<string, unknown> | undefined {
  if (exchange.body.length === 0) {
    if (!required) return {};
    validationError(exchange, "request body has an error: value is required but missing");
    return undefined;
  }
  let value: unknown;
  try {
    value = JSON.parse(exchange.body.toString("utf8"));
  } catch {
    validationError(exchange, "request body has an error: failed to decode request body: invalid JSON");
    return undefined;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    validationError(exchange, 'request body has an error: doesn\'t match schema: Error at "": value must be an object');
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
    validationError(
      exchange,
      `request body has an error: doesn't match schema: Error at "/${field}": value must be an object`,
    );
    return undefined;
  }
  const map: Record<string, string> = {};
  for (const [key, entry] of Object.entries(value)) {
    if (typeof entry !== "string") {
      validationError(
        exchange,
        `request body has an error: doesn't match schema: Error at "/${field}/${key}": value must be a string`,
      );
      return undefined;
    }
    map[key] = entry;
  }
  return map;
}

/**
 * A timeout in seconds, the default when absent, or `undefined` after answering 400.
 * The schema (`type: integer, format: int32, minimum: 0`) is checked first, as E2B's
 * request validator does; `policy` then applies the handler's own rule:
 * `"positive"` (create, resume: `validateAndParseTimeout`) refuses 0 and more than
 * the team's maximum, `"capped"` (connect) refuses only more than the maximum, and
 * `"clamped"` (set timeout) accepts any size (the TTL is clamped, not refused).
 */
export function readTimeout(
  exchange: Exchange,
  body: Record<string, unknown>,
  fallback: number | undefined,
  policy: "positive" | "capped" | "clamped",
): number | undefined {
  const value = body.timeout ?? fallback;
  if (value === undefined) {
    validationError(
      exchange,
      'request body has an error: doesn\'t match schema: Error at "/timeout": property "timeout" is missing',
    );
    return undefined;
  }
  if (typeof value !== "number" || !Number.isInteger(value) || value > 2_147_483_647) {
    validationError(
      exchange,
      'request body has an error: doesn\'t match schema: Error at "/timeout": value must be an int32',
    );
    return undefined;
  }
  if (value < 0) {
    validationError(
      exchange,
      'request body has an error: doesn\'t match schema: Error at "/timeout": number must be at least 0',
    );
    return undefined;
  }
  if (policy === "positive" && value === 0) {
    badRequest(exchange, "Timeout must be greater than 0");
    return undefined;
  }
  if (policy !== "clamped" && value > MAX_TIMEOUT_SECONDS) {
    badRequest(exchange, `Timeout cannot be greater than ${MAX_LENGTH_HOURS} hours`);
    return undefined;
  }
  return value;
}

async function create(exchange: Exchange, context: E2BContext, defaultTimeout: number): Promise<void> {
  const body = readObject(exchange, true);
  if (!body) return;
  if (body.templateID === undefined) {
    validationError(
      exchange,
      'request body has an error: doesn\'t match schema: Error at "/templateID": property "templateID" is missing',
    );
    return;
  }
  if (typeof body.templateID !== "string") {
    validationError(
      exchange,
      'request body has an error: doesn\'t match schema: Error at "/templateID": value must be a string',
    );
    return;
  }
  if (body.templateID === "") {
    badRequest(exchange, "Invalid template reference: template name cannot be empty");
    return;
  }
  const metadata = readStringMap(exchange, body, "metadata");
  if (!metadata) return;
  const envVars = readStringMap(exchange, body, "envVars");
  if (!envVars) return;
  const timeoutSeconds = readTimeout(exchange, body, defaultTimeout, "positive");
  if (timeoutSeconds === undefined) return;
  if (body.autoPause !== undefined && typeof body.autoPause !== "boolean") {
    validationError(
      exchange,
      'request body has an error: doesn\'t match schema: Error at "/autoPause": value must be a boolean',
    );
    return;
  }
  if (body.allow_internet_access !== undefined && typeof body.allow_internet_access !== "boolean") {
    validationError(
      exchange,
      'request body has an error: doesn\'t match schema: Error at "/allow_internet_access": value must be a boolean',
    );
    return;
  }
  // The schema's SandboxNetworkConfig is not nullable: `null` is refused like any non-object.
  const network = (body.network === undefined ? {} : body.network) as Record<string, unknown>;
  if (typeof network !== "object" || network === null || Array.isArray(network)) {
    validationError(
      exchange,
      'request body has an error: doesn\'t match schema: Error at "/network": value must be an object',
    );
    return;
  }
  if (network.allowPublicTraffic !== undefined && typeof network.allowPublicTraffic !== "boolean") {
    validationError(
      exchange,
      'request body has an error: doesn\'t match schema: Error at "/network/allowPublicTraffic": value must be a boolean',
    );
    return;
  }
  const egress = readEgress(exchange, body, network);
  if (!egress) return;
  const from = context.snapshots.find(body.templateID);
  // Any plain template name runs on the backend; a namespaced or tagged one must be a snapshot of the team.
  if (!from && /[/:]/.test(body.templateID)) {
    exchange.json(404, { code: 404, message: `template '${body.templateID}' not found` });
    return;
  }
  let sandbox: E2BSandbox;
  try {
    sandbox = await context.createSandbox({
      templateId: from?.templateId ?? body.templateID,
      ...(from === undefined ? {} : { from }),
      metadata,
      envVars,
      timeoutSeconds,
      autoPause: body.autoPause === true,
      egress,
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

function setTimeoutRoute(exchange: Exchange, context: E2BContext): void {
  const body = readObject(exchange);
  if (!body) return;
  const timeoutSeconds = readTimeout(exchange, body, undefined, "clamped");
  if (timeoutSeconds === undefined) return;
  const sandbox = lookUp(exchange, context);
  if (!sandbox) return;
  // E2B clamps the new end to the sandbox's longest life, counted from its start.
  const longest = sandbox.data.startedAt + MAX_TIMEOUT_SECONDS * 1000;
  context.setEndAt(sandbox, Math.min(Date.now() + timeoutSeconds * 1000, longest));
  exchange.reply(204);
}

async function pause(exchange: Exchange, context: E2BContext): Promise<void> {
  const body = readObject(exchange);
  if (!body) return;
  const sandbox = lookUp(exchange, context);
  if (!sandbox) return;
  if (sandbox.state === "paused") {
    exchange.json(409, {
      code: 409,
      message: `Sandbox '${sandbox.id}' cannot be paused while in '${sandbox.state}' state`,
    });
    return;
  }
  await context.pauseSandbox(sandbox);
  exchange.reply(204);
}

function connect(exchange: Exchange, context: E2BContext, defaultTimeout: number | undefined): void {
  // v1's ConnectSandbox body is required with a required timeout; v2's timeout defaults to 300.
  const body = readObject(exchange, defaultTimeout === undefined);
  if (!body) return;
  const timeoutSeconds = readTimeout(exchange, body, defaultTimeout, "capped");
  if (timeoutSeconds === undefined) return;
  const sandbox = lookUp(exchange, context);
  if (!sandbox) return;
  if (sandbox.state === "paused") {
    context.resumeSandbox(sandbox, timeoutSeconds);
    exchange.json(201, sandboxJson(sandbox, context));
    return;
  }
  // Connecting to a running sandbox only ever extends its life.
  context.setEndAt(sandbox, Math.max(sandbox.data.endAt, Date.now() + timeoutSeconds * 1000));
  exchange.json(200, sandboxJson(sandbox, context));
}

function resume(exchange: Exchange, context: E2BContext): void {
  const body = readObject(exchange);
  if (!body) return;
  const timeoutSeconds = readTimeout(exchange, body, 15, "positive");
  if (timeoutSeconds === undefined) return;
  const sandbox = lookUp(exchange, context);
  if (!sandbox) return;
  if (sandbox.state !== "paused") {
    exchange.json(409, { code: 409, message: `Sandbox ${sandbox.id} is already running` });
    return;
  }
  context.resumeSandbox(sandbox, timeoutSeconds);
  exchange.json(201, sandboxJson(sandbox, context));
}
