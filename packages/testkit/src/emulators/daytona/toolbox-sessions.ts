/**
 * Toolbox sessions: create, list, get and delete a session; run a command in
 * it (synchronously, or with `runAsync` answering 202 at once); a command's
 * exit code; and its logs, as JSON (`output`, `stdout`, `stderr`) or followed
 * over a WebSocket whose binary messages carry the daemon's stream markers
 * (`01 01 01` before stdout bytes, `02 02 02` before stderr bytes) and which
 * closes when the command ends.
 *
 * Input to a running async command (`.../command/:commandId/input`, `{ data }`)
 * goes to its stdin with a newline added when missing, and is copied into
 * its output unless the command was started with `suppressInputEcho`, as
 * the daemon does; a command that has ended answers 410
 * `COMMAND_ALREADY_COMPLETED`, one that reads no input (a synchronous one,
 * or one still queued) 409.
 *
 * @module
 */

import type { SandboxHandle } from "@sandport/core";
import type { Exchange } from "../harness/exchange.js";
import type { EmulatorServer } from "../harness/http-server.js";
import type { DaytonaContext, DaytonaSandbox } from "./context.js";
import { DaemonError } from "./errors.js";
import { BadRequestError, optionalBoolean, optionalString, readObject } from "./request-body.js";
import type { CommandRunner, OutputChunk, Session, SessionCommand } from "./session-table.js";
import { runShell, runShellWithStdin, type ShellRun, UNBOUNDED_COMMAND_MS } from "./shell.js";
import { toolboxRoutes } from "./toolbox-routes.js";

/** The markers the daemon's labelers put before each stdout and stderr chunk of a followed log. */
const STDOUT_MARKER = Buffer.from([0x01, 0x01, 0x01]);
const STDERR_MARKER = Buffer.from([0x02, 0x02, 0x02]);

/** Register the session routes. */
export function registerToolboxSessions(server: EmulatorServer, context: DaytonaContext): void {
  const add = toolboxRoutes(server, context);

  add("POST", "/process/session", (exchange, sandbox) => {
    const sessionId = optionalString(readObject(exchange), "sessionId");
    if (!sessionId) throw new BadRequestError("sessionId is required");
    if (!sandbox.data.sessions.create(sessionId)) {
      throw new DaemonError(409, "CONFLICT", `session ${sessionId} already exists`);
    }
    exchange.reply(201);
  });

  add("GET", "/process/session", (exchange, sandbox) =>
    exchange.json(200, sandbox.data.sessions.list().map(sessionJson)),
  );

  add("GET", "/process/session/:sessionId", (exchange, sandbox) =>
    exchange.json(200, sessionJson(sessionOf(exchange, sandbox))),
  );

  add("DELETE", "/process/session/:sessionId", async (exchange, sandbox) => {
    const sessionId = exchange.params.sessionId ?? "";
    if (!(await sandbox.data.sessions.delete(sessionId))) throw sessionNotFound(sessionId);
    exchange.reply(204);
  });

  add("POST", "/process/session/:sessionId/exec", async (exchange, sandbox, handle) => {
    const session = sessionOf(exchange, sandbox);
    const body = readObject(exchange);
    const command = optionalString(body, "command");
    if (command === undefined || command.trim() === "") throw new BadRequestError("command cannot be empty");
    const runAsync = optionalBoolean(body, "runAsync") === true || optionalBoolean(body, "async") === true;
    const suppressInputEcho = optionalBoolean(body, "suppressInputEcho") === true;
    const acceptsInput = runAsync && context.backend.spawn !== undefined;
    const started = session.execute(command, runner(context, sandbox, handle, acceptsInput), {
      acceptsInput,
      suppressInputEcho,
    });
    if (runAsync) {
      exchange.json(202, { cmdId: started.command.id });
      return;
    }
    await started.done;
    const entry = started.command;
    exchange.json(200, {
      cmdId: entry.id,
      output: entry.combined,
      stdout: entry.stdout,
      stderr: entry.stderr,
      ...(entry.exitCode === undefined ? {} : { exitCode: entry.exitCode }),
    });
  });

  add("GET", "/process/session/:sessionId/command/:commandId", (exchange, sandbox) =>
    exchange.json(200, commandJson(commandOf(exchange, sandbox))),
  );

  add("POST", "/process/session/:sessionId/command/:commandId/input", async (exchange, sandbox) => {
    const command = commandOf(exchange, sandbox);
    const data = optionalString(readObject(exchange), "data");
    if (data === undefined) throw new DaemonError(400, "INVALID_REQUEST_BODY", "data is required");
    const refusal = await command.input(data);
    if (refusal === "ended") {
      throw new DaemonError(
        410,
        "COMMAND_ALREADY_COMPLETED",
        `command has already completed with exit code ${command.exitCode ?? "none"}`,
      );
    }
    if (refusal === "no-stdin") {
      throw new DaemonError(
        409,
        "CONFLICT",
        "the command is not reading input (synchronous, or queued behind another)",
      );
    }
    exchange.reply(204);
  });

  add("GET", "/process/session/:sessionId/command/:commandId/logs", async (exchange, sandbox) => {
    const command = commandOf(exchange, sandbox);
    if (exchange.wantsWebSocket) {
      await followLogs(exchange, command);
      return;
    }
    if (exchange.url.searchParams.get("follow") === "true") {
      // The SDKs follow over the WebSocket only; a plain streamed follow is not emulated.
      server.log.addUnknown(exchange.method, exchange.rawPath);
      throw new DaemonError(400, "BAD_REQUEST", "follow=true over plain HTTP is not emulated; open a WebSocket");
    }
    const accept = exchange.header("accept") ?? "application/json";
    if (!accept.includes("application/json") && accept.includes("text/plain")) {
      exchange.reply(200, { "content-type": "text/plain; charset=utf-8" }, command.combined);
      return;
    }
    exchange.json(200, { output: command.combined, stdout: command.stdout, stderr: command.stderr });
  });
}

/** Runs session commands: one that accepts input with its stdin held open, others with stdin at end of file. */
function runner(
  context: DaytonaContext,
  sandbox: DaytonaSandbox,
  handle: SandboxHandle,
  acceptsInput: boolean,
): CommandRunner {
  return async (command, signal, onChunk, attachStdin) => {
    const run: ShellRun = {
      command,
      cwd: undefined,
      env: sandbox.data.env,
      timeoutMs: UNBOUNDED_COMMAND_MS,
      signal,
      mergeOutput: false,
      onChunk,
    };
    const outcome = acceptsInput
      ? await runShellWithStdin(context.backend, handle, run, attachStdin)
      : await runShell(context.backend, handle, run);
    return outcome.exitCode ?? undefined;
  };
}

async function followLogs(exchange: Exchange, command: SessionCommand): Promise<void> {
  const socket = exchange.acceptWebSocket();
  if (!socket) return;
  const frame = (chunk: OutputChunk) =>
    Buffer.concat([chunk.stream === "stdout" ? STDOUT_MARKER : STDERR_MARKER, Buffer.from(chunk.data, "utf8")]);
  for (const chunk of command.output) socket.send(frame(chunk));
  await new Promise<void>((resolve) => {
    const unsubscribe = command.subscribe({
      chunk: (chunk) => socket.send(frame(chunk)),
      end: () => {
        socket.close();
        resolve();
      },
    });
    socket.signal.addEventListener(
      "abort",
      () => {
        unsubscribe();
        resolve();
      },
      { once: true },
    );
  });
}

function sessionNotFound(sessionId: string): DaemonError {
  return new DaemonError(404, "NOT_FOUND", `session ${sessionId} not found`);
}

function sessionOf(exchange: Exchange, sandbox: DaytonaSandbox): Session {
  const sessionId = exchange.params.sessionId ?? "";
  const session = sandbox.data.sessions.get(sessionId);
  if (!session) throw sessionNotFound(sessionId);
  return session;
}

function commandOf(exchange: Exchange, sandbox: DaytonaSandbox): SessionCommand {
  const commandId = exchange.params.commandId ?? "";
  const command = sessionOf(exchange, sandbox).commands.get(commandId);
  if (!command) throw new DaemonError(404, "NOT_FOUND", `command ${commandId} not found`);
  return command;
}

function commandJson(command: SessionCommand) {
  return {
    id: command.id,
    command: command.command,
    ...(command.exitCode === undefined ? {} : { exitCode: command.exitCode }),
  };
}

function sessionJson(session: Session) {
  return { sessionId: session.id, commands: [...session.commands.values()].map(commandJson) };
}
