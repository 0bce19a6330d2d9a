/**
 * envd `process.Process` input over Connect JSON: SendInput (one chunk),
 * StreamInput (a client stream: a `start` naming the process, then `data`
 * chunks and keepalives) and CloseStdin, all feeding the stdin of a process
 * started with `stdin: true` (see `ProcessStdin`), or typing into the terminal
 * of one started with `pty` (`input.pty`).
 *
 * The harness reads a request body whole before it routes it, so StreamInput's
 * chunks reach the process once the client has finished its stream, in order.
 * The e2b SDK (2.x) does not call StreamInput; other envd clients do.
 *
 * @module
 */

import {
  asRpcError,
  decodeEnvelopes,
  encodeEnvelope,
  RpcError,
  replyRpcError,
  rpcErrorReply,
} from "../harness/connect-rpc.js";
import type { Exchange } from "../harness/exchange.js";
import type { EmulatorServer } from "../harness/http-server.js";
import type { E2BContext, E2BSandbox } from "./context.js";
import { envdGuard, envdUnaryRoutes, sandboxOf, selectProcess } from "./envd-guard.js";
import { toRpcError } from "./errors.js";
import type { EmulatedProcess } from "./process-table.js";

const SERVICE = "process.Process";
const FLAG_COMPRESSED = 0b01;
const FLAG_END_STREAM = 0b10;

/** Registers SendInput, StreamInput and CloseStdin behind the envd guard. */
export function registerEnvdInput(server: Pick<EmulatorServer, "route">, context: E2BContext): void {
  const unary = envdUnaryRoutes(server, context, SERVICE);
  const guard = envdGuard(context, "rpc");

  unary("SendInput", async (request, sandbox) => {
    const process = selectProcess(sandbox, request.process);
    await writeInput(process, request.input);
    return {};
  });

  unary("CloseStdin", async (request, sandbox) => {
    await stdinOf(selectProcess(sandbox, request.process)).close();
    return {};
  });

  server.route({
    method: "POST",
    pattern: `/${SERVICE}/StreamInput`,
    name: `rpc ${SERVICE}/StreamInput`,
    errorReply: rpcErrorReply,
    handler: async (exchange) => {
      if (await guard(exchange)) await streamInput(exchange, sandboxOf(exchange));
    },
  });
}

/** The process's stdin, or `failed_precondition` when it was started without one. */
function stdinOf(process: EmulatedProcess) {
  if (!process.stdin) throw new RpcError("failed_precondition", `process ${process.pid} was started without stdin`);
  return process.stdin;
}

/** Writes one `ProcessInput` (`{ stdin: <base64> }`) to the process's stdin. */
async function writeInput(process: EmulatedProcess, input: unknown): Promise<void> {
  const value = (input ?? {}) as Record<string, unknown>;
  if (value.pty !== undefined) {
    if (typeof value.pty !== "string") throw new RpcError("invalid_argument", "input.pty (base64) must be bytes");
    try {
      await process.writePty(Buffer.from(value.pty, "base64"));
    } catch (error) {
      throw toRpcError(error);
    }
    return;
  }
  if (typeof value.stdin !== "string") throw new RpcError("invalid_argument", "input.stdin (base64) is required");
  const stdin = stdinOf(process);
  try {
    await stdin.write(Buffer.from(value.stdin, "base64"));
  } catch (error) {
    throw toRpcError(error);
  }
}

/** StreamInput: the messages in order, then one empty response message and the end of the stream. */
async function streamInput(exchange: Exchange, sandbox: E2BSandbox): Promise<void> {
  const contentType = (exchange.header("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
  if (contentType !== "application/connect+json") {
    replyRpcError(exchange, new RpcError("unimplemented", `unsupported content type ${contentType}`), 415);
    return;
  }
  let ending: Record<string, unknown> = {};
  let answered = false;
  try {
    let process: EmulatedProcess | undefined;
    for (const frame of decodeEnvelopes(exchange.body)) {
      if (frame.flags & FLAG_COMPRESSED) throw new RpcError("unimplemented", "compressed messages are not supported");
      const message = parse(frame.payload);
      if (message.start !== undefined) {
        if (process) throw new RpcError("invalid_argument", "the stream names its process once, first");
        process = selectProcess(sandbox, (message.start as Record<string, unknown> | null)?.process);
        stdinOf(process);
      } else if (message.data !== undefined) {
        if (!process) throw new RpcError("invalid_argument", "the stream must start with a start message");
        await writeInput(process, (message.data as Record<string, unknown> | null)?.input);
      } else if (message.keepalive === undefined) {
        throw new RpcError("invalid_argument", "each message is one of start, data or keepalive");
      }
    }
    if (!process) throw new RpcError("invalid_argument", "the stream must start with a start message");
    answered = true;
  } catch (error) {
    const rpcError = asRpcError(error);
    ending = { error: { code: rpcError.code, message: rpcError.message } };
  }
  const response = exchange.stream(200, { "content-type": "application/connect+json" });
  if (answered) response.write(encodeEnvelope(0, Buffer.from("{}")));
  response.end(encodeEnvelope(FLAG_END_STREAM, Buffer.from(JSON.stringify(ending))));
}

function parse(payload: Uint8Array): Record<string, unknown> {
  let value: unknown;
  try {
    value = payload.length === 0 ? {} : JSON.parse(Buffer.from(payload).toString("utf8"));
  } catch {
    throw new RpcError("invalid_argument", "a stream message is not valid JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new RpcError("invalid_argument", "a stream message must be a JSON object");
  }
  return value as Record<string, unknown>;
}
