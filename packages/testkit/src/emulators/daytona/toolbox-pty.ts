/**
 * Toolbox PTY sessions (`process/pty`), as the SDK's `Process.createPty`,
 * `connectPty`, `resizePtySession`, `killPtySession` and its `PtyHandle` use
 * them: create-and-connect in one WebSocket (0.218), or create over HTTP then
 * connect (0.180); binary messages both ways; JSON text control messages
 * (`connected`, `exited`); the exit code in the close frame's reason.
 *
 * @module
 */

import type { Exchange } from "../harness/exchange.js";
import type { EmulatorServer } from "../harness/http-server.js";
import type { DaytonaContext, DaytonaSandbox } from "./context.js";
import { DaemonError } from "./errors.js";
import { DAYTONA_HOME, toBackendCwd } from "./paths.js";
import { MAX_PTY_CELLS, PtySession } from "./pty-session.js";
import {
  BadRequestError,
  optionalBoolean,
  optionalInteger,
  optionalString,
  readObject,
  stringMap,
} from "./request-body.js";
import { toolboxRoutes } from "./toolbox-routes.js";

/** Subprotocol token carrying the session's environment: base64url (no padding) of a JSON object. */
const ENVS_PREFIX = "X-Daytona-Pty-Envs~";
/** Subprotocol token a client offers to get the `exited` control message before the close frame. */
const EXIT_CONTROL = "X-Daytona-Pty-Exit-Control";

/** Register the PTY routes. */
export function registerToolboxPty(server: EmulatorServer, context: DaytonaContext): void {
  const add = toolboxRoutes(server, context);

  add("GET", "/process/pty/create-connect", async (exchange, sandbox, handle) => {
    if (!exchange.wantsWebSocket) throw new BadRequestError("create-connect needs a WebSocket upgrade");
    const query = exchange.url.searchParams;
    const protocols = offeredProtocols(exchange);
    const session = newSession(sandbox, {
      id: query.get("id") ?? "",
      cwd: query.get("cwd") ?? undefined,
      envs: envsOf(protocols),
      cols: cellsOf(query.get("cols"), "cols"),
      rows: cellsOf(query.get("rows"), "rows"),
      lazyStart: false,
    });
    await startSession(context, sandbox, handle, session);
    attach(exchange, session, protocols);
  });

  add("POST", "/process/pty", async (exchange, sandbox, handle) => {
    const body = readObject(exchange);
    const session = newSession(sandbox, {
      id: optionalString(body, "id") ?? "",
      cwd: optionalString(body, "cwd"),
      envs: stringMap(body, "envs"),
      cols: optionalInteger(body, "cols", 0),
      rows: optionalInteger(body, "rows", 0),
      lazyStart: optionalBoolean(body, "lazyStart") ?? false,
    });
    if (!session.spec.lazyStart) await startSession(context, sandbox, handle, session);
    exchange.json(201, { sessionId: session.spec.id });
  });

  add("GET", "/process/pty", (exchange, sandbox) => {
    exchange.json(200, { sessions: [...sandbox.data.ptys.values()].map((session) => session.info()) });
  });

  add("GET", "/process/pty/:sessionId", (exchange, sandbox) => {
    exchange.json(200, sessionOf(exchange, sandbox).info());
  });

  add("GET", "/process/pty/:sessionId/connect", async (exchange, sandbox, handle) => {
    if (!exchange.wantsWebSocket) throw new BadRequestError("connect needs a WebSocket upgrade");
    const session = sandbox.data.ptys.get(exchange.params.sessionId ?? "");
    const protocols = offeredProtocols(exchange);
    if (!session) {
      // The daemon upgrades first, then reports the failure as a control message and closes.
      const socket = exchange.acceptWebSocket(protocolAnswer(protocols));
      socket?.send(
        JSON.stringify({
          type: "control",
          status: "error",
          error: "Failed to connect to PTY session: PTY session not found",
        }),
      );
      socket?.close(1011, JSON.stringify({ error: "PTY session not found" }));
      return;
    }
    await startSession(context, sandbox, handle, session);
    attach(exchange, session, protocols);
  });

  add("POST", "/process/pty/:sessionId/resize", async (exchange, sandbox) => {
    const body = readObject(exchange);
    const cols = optionalInteger(body, "cols", 1);
    const rows = optionalInteger(body, "rows", 1);
    if (cols === undefined || rows === undefined) throw new BadRequestError("cols and rows are required");
    if (cols > MAX_PTY_CELLS) throw new BadRequestError("cols must be less than 1000");
    if (rows > MAX_PTY_CELLS) throw new BadRequestError("rows must be less than 1000");
    const session = sessionOf(exchange, sandbox);
    await session.resize(cols, rows);
    exchange.json(200, session.info());
  });

  add("DELETE", "/process/pty/:sessionId", async (exchange, sandbox) => {
    const session = sessionOf(exchange, sandbox);
    sandbox.data.ptys.delete(session.spec.id);
    await session.kill();
    exchange.json(200, { message: "PTY session deleted" });
  });
}

interface NewSession {
  readonly id: string;
  readonly cwd: string | undefined;
  readonly envs: Record<string, string>;
  readonly cols: number | undefined;
  readonly rows: number | undefined;
  readonly lazyStart: boolean;
}

/** A new session registered under its id; the daemon's defaults and limits applied. */
function newSession(sandbox: DaytonaSandbox, request: NewSession): PtySession {
  if (request.id === "") throw new BadRequestError("session ID is required");
  if (sandbox.data.ptys.has(request.id)) {
    throw new DaemonError(409, "CONFLICT", `PTY session with ID '${request.id}' already exists`);
  }
  const cols = request.cols ?? 80;
  const rows = request.rows ?? 24;
  if (cols > MAX_PTY_CELLS) throw new BadRequestError("invalid value for cols - must be less than 1000");
  if (rows > MAX_PTY_CELLS) throw new BadRequestError("invalid value for rows - must be less than 1000");
  const cwd = request.cwd === undefined || request.cwd === "" ? DAYTONA_HOME : request.cwd;
  const session = new PtySession({
    id: request.id,
    cwd,
    backendCwd: toBackendCwd(cwd),
    envs: request.envs,
    cols,
    rows,
    lazyStart: request.lazyStart,
  });
  sandbox.data.ptys.set(request.id, session);
  session.onEnd = () => {
    if (sandbox.data.ptys.get(request.id) === session) sandbox.data.ptys.delete(request.id);
  };
  return session;
}

/** Starts the session's shell; a failure forgets the session and answers 500 as the daemon does. */
async function startSession(
  context: DaytonaContext,
  sandbox: DaytonaSandbox,
  handle: Parameters<PtySession["start"]>[1],
  session: PtySession,
): Promise<void> {
  try {
    await session.start(context.backend, handle, sandbox.data.env);
  } catch (error) {
    sandbox.data.ptys.delete(session.spec.id);
    throw new DaemonError(500, "INTERNAL_SERVER_ERROR", `failed to start PTY session: ${(error as Error).message}`);
  }
}

/** Accepts the WebSocket and attaches it to `session`. */
function attach(exchange: Exchange, session: PtySession, protocols: readonly string[]): void {
  const socket = exchange.acceptWebSocket(protocolAnswer(protocols));
  if (socket) session.attach(socket, protocols.includes(EXIT_CONTROL));
}

/** The subprotocol echoed back: the exit-control token when offered (a client that offered tokens needs one). */
function protocolAnswer(protocols: readonly string[]): { protocol?: string } {
  if (protocols.includes(EXIT_CONTROL)) return { protocol: EXIT_CONTROL };
  return protocols[0] === undefined ? {} : { protocol: protocols[0] };
}

function offeredProtocols(exchange: Exchange): string[] {
  return (exchange.header("sec-websocket-protocol") ?? "")
    .split(",")
    .map((token) => token.trim())
    .filter((token) => token !== "");
}

/** The environment from the `X-Daytona-Pty-Envs~` token; `{}` without one. */
function envsOf(protocols: readonly string[]): Record<string, string> {
  const token = protocols.find((protocol) => protocol.startsWith(ENVS_PREFIX));
  if (token === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(token.slice(ENVS_PREFIX.length), "base64url").toString("utf8"));
  } catch {
    throw new BadRequestError("failed to unmarshal PTY envs subprotocol");
  }
  return stringMap({ envs: value }, "envs");
}

/** A `cols`/`rows` query value: absent is the default, otherwise a non-negative integer. */
function cellsOf(text: string | null, field: string): number | undefined {
  if (text === null || text === "") return undefined;
  if (!/^\d+$/.test(text)) throw new BadRequestError(`invalid value for ${field}`);
  return Number(text);
}

function sessionOf(exchange: Exchange, sandbox: DaytonaSandbox): PtySession {
  const session = sandbox.data.ptys.get(exchange.params.sessionId ?? "");
  if (!session) throw new DaemonError(404, "NOT_FOUND", "PTY session not found");
  return session;
}
