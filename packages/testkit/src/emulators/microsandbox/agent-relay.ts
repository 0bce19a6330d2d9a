/**
 * The agent relay, `GET /v1/sandboxes/:id/agent` upgraded to a WebSocket that
 * carries the agent protocol as a byte stream. The handshake is the relay's:
 * the client's id range `[start u32 BE][end-exclusive u32 BE]` and agentd's
 * `core.ready`, then messages both ways, one frame per binary WebSocket
 * message. The SDK opens one connection per operation.
 *
 * @module
 */

import type { Exchange } from "../harness/exchange.js";
import type { EmulatorServer } from "../harness/http-server.js";
import type { WebSocketConnection } from "../harness/websocket.js";
import { AgentCodec, AgentFrameError, type AgentMessage, FLAG_TERMINAL, FrameReader } from "./agent-codec.js";
import { AgentConnection } from "./agent-connection.js";
import { ExecSession } from "./agent-exec.js";
import { FsSessions } from "./agent-fs.js";
import type { MicrosandboxContext, MicrosandboxSandbox } from "./context.js";
import { cloudErrorReply, hasApiKey, replyError } from "./errors.js";
import { notEmulated, refuseMessage } from "./interactive.js";
import type { CborLibrary } from "./libraries.js";

/**
 * The relay gives each client one 128th of the u32 id space; the emulator
 * hands out the first slot. (An end below 4 MiB would read as the legacy handshake.)
 */
const ID_RANGE_START = 1;
const ID_RANGE_END = Math.floor(0xffff_ffff / 128);

/** Settings of the agent relay. */
export interface AgentRelayOptions {
  /** How long an exec waits for stdin given up front (see `interactive.ts`). */
  readonly stdinGraceMs: number;
  readonly cbor: CborLibrary;
}

/** What every connection of one relay shares. */
interface RelayShared {
  readonly context: MicrosandboxContext;
  readonly codec: AgentCodec;
  readonly stdinGraceMs: number;
}

/** Register the agent route, a plain harness route whose handler accepts the WebSocket. */
export function registerAgentRelay(
  server: EmulatorServer,
  context: MicrosandboxContext,
  options: AgentRelayOptions,
): void {
  const shared: RelayShared = {
    context,
    codec: new AgentCodec(options.cbor),
    stdinGraceMs: options.stdinGraceMs,
  };
  server.route({
    method: "GET",
    pattern: "/v1/sandboxes/:id/agent",
    errorReply: cloudErrorReply,
    handler: (exchange) => accept(exchange, shared),
  });
}

function accept(exchange: Exchange, shared: RelayShared): void {
  const { context } = shared;
  if (!hasApiKey(exchange.header("authorization"), context.apiKey)) {
    replyError(exchange, 401, "invalid_api_key", "unauthorized");
    return;
  }
  const sandbox = context.registry.get(exchange.params.id ?? "");
  if (!sandbox) {
    replyError(exchange, 404, "sandbox_not_found", "resource not found");
    return;
  }
  if (sandbox.state !== "running") {
    replyError(exchange, 409, "sandbox_not_running", `sandbox '${sandbox.data.name}' is ${sandbox.state}`);
    return;
  }
  if (!exchange.wantsWebSocket) {
    replyError(exchange, 400, "invalid_request", "the agent route needs a WebSocket upgrade");
    return;
  }
  // The relay's faults are about agent messages: a cut counts them after the handshake message, and a
  // lost response is a terminal message that never arrives (see AgentConnection).
  const socket = exchange.acceptWebSocket({ disruptionBy: "route" });
  if (!socket) return;
  serve(socket, new AgentConnection(socket, shared.codec, exchange.disruption), shared, sandbox);
}

function serve(
  socket: WebSocketConnection,
  connection: AgentConnection,
  shared: RelayShared,
  sandbox: MicrosandboxSandbox,
): void {
  const { context } = shared;
  context.touch(sandbox);
  connection.sendHandshake(ID_RANGE_START, ID_RANGE_END, {
    boot_time_ns: 0,
    init_time_ns: 0,
    ready_time_ns: 0,
    agent_version: "sandport-emulator",
  });

  const reader = new FrameReader(shared.codec);
  const execs = new Map<number, ExecSession>();
  const files = new FsSessions(context, sandbox, connection);
  socket.onMessage = (data) => {
    let messages: AgentMessage[];
    try {
      messages = reader.push(data);
    } catch (error) {
      if (!(error instanceof AgentFrameError)) throw error;
      connection.send(0, FLAG_TERMINAL, "core.error", { kind: "malformed_message", message: error.message });
      connection.destroy();
      return;
    }
    // Answering at once lets the client's kernel acknowledge the frame: its small follow-up frames
    // (stdin, file data) would otherwise wait out Nagle's algorithm against a delayed ACK, 40 ms each.
    if (messages.length > 0 && !connection.closed) socket.ping();
    for (const message of messages) {
      context.touch(sandbox);
      dispatch(message, { context, sandbox, connection, execs, files, stdinGraceMs: shared.stdinGraceMs });
    }
  };
}

interface ConnectionState {
  readonly context: MicrosandboxContext;
  readonly sandbox: MicrosandboxSandbox;
  readonly connection: AgentConnection;
  readonly execs: Map<number, ExecSession>;
  readonly files: FsSessions;
  readonly stdinGraceMs: number;
}

function dispatch(message: AgentMessage, state: ConnectionState): void {
  const { context, sandbox, connection, execs, files } = state;
  const { id, type, payload } = message;
  switch (type) {
    case "core.exec.request": {
      context.recordAgentOperation(sandbox, type);
      const session = new ExecSession({
        context,
        sandbox,
        connection,
        id,
        stdinGraceMs: state.stdinGraceMs,
      });
      execs.set(id, session);
      void session.run(payload).finally(() => execs.delete(id));
      return;
    }
    case "core.exec.stdin": {
      const session = execs.get(id);
      if (session) session.stdin(payload);
      // Stdin for a command that has ended: agentd drops it. Without spawn, it was live stdin, not emulated.
      else if (hasData(payload) && !context.backend.spawn) notEmulated(context, "core.exec.stdin");
      return;
    }
    case "core.exec.signal":
      execs.get(id)?.signal(payload);
      return;
    case "core.exec.resize":
      notEmulated(context, type);
      return;
    case "core.fs.request":
      context.recordAgentOperation(sandbox, `${type} ${FsSessions.operationOf(payload).name}`);
      void files.request(id, payload);
      return;
    case "core.fs.data":
      files.data(id, payload);
      return;
    case "core.ping":
      connection.send(id, FLAG_TERMINAL, "core.pong", {});
      return;
    default:
      refuseMessage(context, connection, id, type);
  }
}

/** True for a `core.exec.stdin` that carries bytes (not EOF). Stdin for an ended command is live stdin too. */
function hasData(payload: unknown): boolean {
  const data = (payload as { data?: unknown } | undefined)?.data;
  return data instanceof Uint8Array && data.length > 0;
}
