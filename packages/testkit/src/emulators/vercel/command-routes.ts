/**
 * Commands: `POST /v2/sandboxes/sessions/:sessionId/cmd` (run, detached or
 * waited with streamed logs), `GET .../cmd/:cmdId` (status, or `?wait=true`),
 * `GET .../cmd/:cmdId/logs` (NDJSON) and `POST .../cmd/:cmdId/kill`.
 *
 * @module
 */

import { MAX_OUTPUT_BYTES, SandportError } from "@sandport/core";
import type { Exchange } from "../harness/exchange.js";
import type { EmulatorServer } from "../harness/http-server.js";
import { addGuardedRoute } from "./auth.js";
import { streamCommand } from "./command-stream.js";
import { type EmulatedCommand, isEndingSignal } from "./command-table.js";
import type { VercelContext } from "./context.js";
import { badRequest, messageOf, notFound, replyFailure, sandboxStopped } from "./errors.js";
import { mapArgument, toBackendCwd, toSandboxAbsolute } from "./paths.js";
import { commandJson } from "./payloads.js";
import { readInteger, readObject, readStringMap } from "./request-body.js";
import { MAX_TIMEOUT_MS } from "./sandbox-create.js";
import { type SessionTarget, withSession } from "./session-guard.js";

/** A command without its own timeout still needs a deadline for the port: the longest session life. */
const UNBOUNDED_MS = MAX_TIMEOUT_MS;

/** Register the command routes; every one needs the token, the team and a running session. */
export function registerCommandRoutes(server: EmulatorServer, context: VercelContext): void {
  const add = (method: string, pattern: string, handler: (target: SessionTarget, exchange: Exchange) => unknown) =>
    addGuardedRoute(server, context, method, pattern, (exchange) =>
      withSession(exchange, context, async (target) => {
        await handler(target, exchange);
      }),
    );

  add("POST", "/v2/sandboxes/sessions/:sessionId/cmd", (target, exchange) => run(exchange, context, target));
  add("GET", "/v2/sandboxes/sessions/:sessionId/cmd/:cmdId", (target, exchange) =>
    withCommand(exchange, target, async (command) => {
      if (exchange.url.searchParams.get("wait") === "true") {
        await Promise.race([command.done, aborted(exchange.signal)]);
        if (command.failure) {
          sandboxStopped(exchange);
          return;
        }
      }
      exchange.json(200, { command: commandJson(command) });
    }),
  );
  add("GET", "/v2/sandboxes/sessions/:sessionId/cmd/:cmdId/logs", (target, exchange) =>
    withCommand(exchange, target, (command) =>
      streamCommand(exchange, command, { leadWithCommand: false, logs: true, endWithCommand: false }),
    ),
  );
  add("POST", "/v2/sandboxes/sessions/:sessionId/cmd/:cmdId/kill", (target, exchange) =>
    withCommand(exchange, target, async (command) => {
      const body = readObject(exchange);
      if (!body) return;
      const signal = readInteger(exchange, body.signal, "signal", { min: 1, max: 64, fallback: 15 });
      if (signal === undefined) return;
      if (!isEndingSignal(signal)) {
        badRequest(exchange, `signal ${signal} is not emulated: only signals that end a process (1, 2, 3, 9, 15)`);
        return;
      }
      command.kill(signal);
      await command.done;
      exchange.json(200, { command: commandJson(command) });
    }),
  );
}

async function withCommand(
  exchange: Exchange,
  target: SessionTarget,
  handler: (command: EmulatedCommand) => Promise<void> | void,
): Promise<void> {
  const id = exchange.params.cmdId ?? "";
  const command = target.session.commands.get(id);
  if (!command) {
    notFound(exchange, `Command not found: ${id}`);
    return;
  }
  await handler(command);
}

async function run(exchange: Exchange, context: VercelContext, target: SessionTarget): Promise<void> {
  const body = readObject(exchange);
  if (!body) return;
  if (typeof body.command !== "string" || body.command === "") {
    badRequest(exchange, "command is required");
    return;
  }
  const args = body.args ?? [];
  if (!Array.isArray(args) || args.some((arg) => typeof arg !== "string")) {
    badRequest(exchange, "args must be an array of strings");
    return;
  }
  const env = readStringMap(exchange, body.env, "env");
  if (!env) return;
  if (body.sudo === true) {
    // Running as root is not something the backend can do; pretending would hide a difference.
    badRequest(exchange, "sudo is not emulated: commands run as the backend's user");
    return;
  }
  const timeout = readInteger(exchange, body.timeout, "timeout", {
    min: 1,
    max: MAX_TIMEOUT_MS,
    fallback: UNBOUNDED_MS,
  });
  if (timeout === undefined) return;
  let cwd: string;
  try {
    cwd = body.cwd === undefined || body.cwd === null ? "" : toBackendCwd(body.cwd);
  } catch (error) {
    badRequest(exchange, `cwd: ${messageOf(error)}`);
    return;
  }
  const { sandbox, session } = target;
  const handle = sandbox.data.handle;
  const workspacePath = sandbox.data.workspacePath;
  if (!handle || workspacePath === undefined) {
    sandboxStopped(exchange);
    return;
  }
  const argv = [body.command, ...(args as string[])].map((argument) => mapArgument(argument, workspacePath));
  let command: EmulatedCommand;
  try {
    command = await session.commands.start({
      backend: context.backend,
      handle,
      view: { name: body.command, args: [...(args as string[])], cwd: toSandboxAbsolute(cwd), sessionId: session.id },
      request: {
        argv,
        ...(cwd === "" ? {} : { cwd }),
        env: { ...sandbox.data.env, ...env },
        timeoutMs: timeout,
        maxOutputBytes: MAX_OUTPUT_BYTES,
      },
    });
  } catch (error) {
    if (SandportError.hasCode(error, "NOT_FOUND")) badRequest(exchange, `cwd ${toSandboxAbsolute(cwd)} does not exist`);
    else replyFailure(exchange, error, "the command could not be started: ");
    return;
  }
  if (body.wait !== true) {
    exchange.json(200, { command: commandJson(command) });
    return;
  }
  await streamCommand(exchange, command, { leadWithCommand: true, logs: body.logs === true, endWithCommand: true });
}

/** Resolves when the signal aborts (never rejects). */
function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener("abort", () => resolve(), { once: true });
  });
}
