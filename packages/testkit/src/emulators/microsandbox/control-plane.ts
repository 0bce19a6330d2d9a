/**
 * The cloud control plane's sandbox routes (`/v1/sandboxes…`), every one
 * behind `Authorization: Bearer <api key>`: create (optionally started),
 * list, get by id and by name, start, stop and delete by id and by name.
 *
 * @module
 */

import { SandportError } from "@sandport/core";
import type { Exchange } from "../harness/exchange.js";
import type { EmulatorServer } from "../harness/http-server.js";
import { type MicrosandboxContext, type MicrosandboxSandbox, NameTakenError } from "./context.js";
import { sandboxJson } from "./control-plane-json.js";
import { listSandboxes } from "./control-plane-list.js";
import { CreateRefusedError, readCreateRequest } from "./create-request.js";
import { cloudErrorReply, hasApiKey, replyError } from "./errors.js";

type Handler = (exchange: Exchange) => Promise<void> | void;
type SandboxHandler = (exchange: Exchange, sandbox: MicrosandboxSandbox) => Promise<void> | void;

/** Add the sandbox routes to the server. */
export function registerControlPlane(server: EmulatorServer, context: MicrosandboxContext): void {
  const add = (method: string, pattern: string, handler: Handler) => {
    server.route({
      method,
      pattern,
      errorReply: cloudErrorReply,
      handler: (exchange) => {
        if (!hasApiKey(exchange.header("authorization"), context.apiKey)) {
          replyError(exchange, 401, "invalid_api_key", "unauthorized");
          return;
        }
        return handler(exchange);
      },
    });
  };
  // Every sandbox route exists twice: by id (`:id`) and by name (`by-name/:name`).
  const both = (method: string, suffix: string, handler: SandboxHandler) => {
    add(method, `/v1/sandboxes/:id${suffix}`, (exchange) =>
      withSandbox(exchange, context.registry.get(exchange.params.id ?? ""), handler),
    );
    add(method, `/v1/sandboxes/by-name/:name${suffix}`, (exchange) =>
      withSandbox(exchange, context.byName(exchange.params.name ?? ""), handler),
    );
  };

  add("POST", "/v1/sandboxes", (exchange) => create(exchange, context));
  add("GET", "/v1/sandboxes", (exchange) => listSandboxes(exchange, context));
  both("GET", "", (exchange, sandbox) => exchange.json(200, sandboxJson(sandbox, context)));
  both("POST", "/start", (exchange, sandbox) => start(exchange, context, sandbox));
  both("POST", "/stop", (exchange, sandbox) => stop(exchange, context, sandbox));
  both("DELETE", "", (exchange, sandbox) => remove(exchange, context, sandbox));
}

async function withSandbox(
  exchange: Exchange,
  sandbox: MicrosandboxSandbox | undefined,
  handler: SandboxHandler,
): Promise<void> {
  if (!sandbox) {
    replyError(exchange, 404, "sandbox_not_found", "resource not found");
    return;
  }
  await handler(exchange, sandbox);
}

/** The readiness wait of `start=true&wait_for=running&wait_timeout=90`; `false` after answering 400. */
function checkWaitQuery(exchange: Exchange): boolean {
  const query = exchange.url.searchParams;
  const waitFor = query.get("wait_for");
  const waitTimeout = query.get("wait_timeout");
  if (waitFor !== null && waitFor !== "running") {
    replyError(exchange, 400, "invalid_request", "wait_for must be running");
    return false;
  }
  if (waitTimeout !== null) {
    const seconds = Number(waitTimeout);
    if (waitFor === null || !Number.isInteger(seconds) || seconds < 0) {
      replyError(exchange, 400, "invalid_request", "wait_timeout must be a non-negative integer, with wait_for");
      return false;
    }
  }
  return true;
}

async function create(exchange: Exchange, context: MicrosandboxContext): Promise<void> {
  if (!checkWaitQuery(exchange)) return;
  const start = exchange.url.searchParams.get("start");
  if (start !== null && start !== "true" && start !== "false") {
    replyError(exchange, 400, "invalid_request", "start must be true or false");
    return;
  }
  let sandbox: MicrosandboxSandbox;
  try {
    const input = readCreateRequest(exchange.body);
    sandbox = await context.createSandbox({ ...input, foreign: false });
  } catch (error) {
    if (error instanceof CreateRefusedError) {
      if (error.notEmulated) context.log.addUnknown("POST", `/v1/sandboxes ${error.notEmulated}`);
      replyError(exchange, 400, error.code, error.message);
    } else if (error instanceof NameTakenError) {
      replyError(exchange, 409, "name_already_exists", error.message);
    } else if (SandportError.hasCode(error, "UNSUPPORTED") || SandportError.hasCode(error, "INVALID_REQUEST")) {
      // The backend cannot give this sandbox what it asks for (no network isolation, say).
      replyError(exchange, 400, "invalid_sandbox_config", `the emulator's backend refused: ${messageOf(error)}`);
    } else {
      replyError(exchange, 502, "orchestrator_unreachable", `sandbox could not be created: ${messageOf(error)}`);
    }
    return;
  }
  if (start === "true") context.startSandbox(sandbox);
  exchange.json(200, sandboxJson(sandbox, context));
}

function start(exchange: Exchange, context: MicrosandboxContext, sandbox: MicrosandboxSandbox): void {
  if (!checkWaitQuery(exchange)) return;
  if (sandbox.state !== "running") context.startSandbox(sandbox);
  exchange.json(200, sandboxJson(sandbox, context));
}

async function stop(exchange: Exchange, context: MicrosandboxContext, sandbox: MicrosandboxSandbox): Promise<void> {
  if (sandbox.state === "created") {
    replyError(exchange, 409, "invalid_state_transition", `sandbox '${sandbox.data.name}' was never started`);
    return;
  }
  if (sandbox.state === "running") await context.stopSandbox(sandbox);
  exchange.json(200, sandboxJson(sandbox, context));
}

async function remove(exchange: Exchange, context: MicrosandboxContext, sandbox: MicrosandboxSandbox): Promise<void> {
  try {
    await context.removeSandbox(sandbox);
  } catch (error) {
    replyError(exchange, 502, "orchestrator_unreachable", `sandbox removed but not destroyed: ${messageOf(error)}`);
    return;
  }
  exchange.json(200, { message: `sandbox '${sandbox.data.name}' destroyed` });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
