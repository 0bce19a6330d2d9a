/**
 * sandboxd's ProcessService (process.proto, package process.v1) on an
 * emulated pod: Start streams `init`, `stdout`/`stderr` and `exit` events;
 * Execute runs to completion; WriteStdin, SendSignal (to the process group)
 * and ResizeTTY act on a started process by its id.
 *
 * @module
 */

import { SandportError } from "@sandport/core";
import { GRPC, type GrpcCall, GrpcError } from "./grpc-server.js";
import { CommandNotFoundError, PodProcessHandle, type ProcessSignal } from "./pod-process.js";
import type { PodRuntime } from "./pod-runtime.js";
import { ProtoMessage, ProtoWriter } from "./protobuf.js";
import { backendCwdOf, confine } from "./sandbox-paths.js";

/** The service's path prefix. */
export const PROCESS_SERVICE = "/process.v1.ProcessService";

const SIGNALS: Record<number, ProcessSignal> = { 2: "SIGINT", 9: "SIGKILL", 15: "SIGTERM" };

const tables = new WeakMap<PodRuntime, Map<number, PodProcessHandle>>();
let nextProcessId = 1000;

function tableOf(pod: PodRuntime): Map<number, PodProcessHandle> {
  let table = tables.get(pod);
  if (table === undefined) {
    table = new Map();
    tables.set(pod, table);
  }
  return table;
}

/** Serve one ProcessService call on a pod. */
export async function serveProcessCall(method: string, call: GrpcCall, pod: PodRuntime): Promise<void> {
  const request = decode(call.request);
  switch (method) {
    case "Start":
      return start(call, pod, request);
    case "Execute":
      return execute(call, pod, request);
    case "WriteStdin":
      return writeStdin(call, pod, request);
    case "SendSignal":
      return sendSignal(call, pod, request);
    case "ResizeTTY":
      return resize(call, pod, request);
    default:
      throw new GrpcError(GRPC.UNIMPLEMENTED, `unknown method process.v1.ProcessService/${method}`);
  }
}

function decode(bytes: Buffer): ProtoMessage {
  try {
    return ProtoMessage.decode(bytes);
  } catch (error) {
    throw new GrpcError(GRPC.INTERNAL, `grpc: error unmarshalling request: ${String(error)}`);
  }
}

interface Config {
  readonly command: string[];
  readonly env: Record<string, string>;
  readonly cwd: string;
}

/** ProcessConfig { repeated string command = 1; map<string,string> env_vars = 2; optional string cwd = 3; } */
function readConfig(message: ProtoMessage | undefined): Config {
  if (message === undefined) throw new GrpcError(GRPC.INVALID_ARGUMENT, "config is required");
  const command = message.repeatedBytes(1).map((part) => part.toString("utf8"));
  if (command.length === 0 || command[0] === "") throw new GrpcError(GRPC.INVALID_ARGUMENT, "command is required");
  const env: Record<string, string> = {};
  for (const entry of message.repeatedBytes(2)) {
    const pair = decode(entry);
    env[pair.string(1)] = pair.string(2);
  }
  const requested = message.has(3) ? message.string(3) : "";
  const cwd = requested === "" ? "/workspace" : confine(requested);
  if (cwd === undefined) {
    throw new GrpcError(GRPC.PERMISSION_DENIED, `cwd: access denied: path "${requested}": path escapes sandbox root`);
  }
  return { command, env, cwd };
}

async function launch(
  pod: PodRuntime,
  config: Config,
  pty?: { cols: number; rows: number },
): Promise<PodProcessHandle> {
  try {
    return await PodProcessHandle.start(pod, {
      command: config.command,
      env: config.env,
      ...(backendCwdOf(config.cwd) === undefined ? {} : { cwd: backendCwdOf(config.cwd)! }),
      ...(pty === undefined ? {} : { pty }),
    });
  } catch (error) {
    if (error instanceof CommandNotFoundError) {
      throw new GrpcError(GRPC.NOT_FOUND, `failed to start command: command or path not found: ${error.message}`);
    }
    if (SandportError.hasCode(error, "NOT_FOUND")) {
      throw new GrpcError(GRPC.NOT_FOUND, `failed to start command: command or path not found: ${String(error)}`);
    }
    throw new GrpcError(GRPC.INTERNAL, `failed to start command: ${String(error)}`);
  }
}

async function start(call: GrpcCall, pod: PodRuntime, request: ProtoMessage): Promise<void> {
  const config = readConfig(request.message(1));
  const ptyMessage = request.message(2);
  const pty =
    ptyMessage === undefined ? undefined : { cols: ptyMessage.uint32(1) || 80, rows: ptyMessage.uint32(2) || 24 };
  const process = await launch(pod, config, pty);
  const id = nextProcessId++;
  const table = tableOf(pod);
  table.set(id, process);
  try {
    call.send(new ProtoWriter().bytes(1, new ProtoWriter().varint(1, id)).finish());
    await new Promise<void>((resolve) => {
      // A full stream holds the process's output back until the client reads on (see `ProcessListener`).
      const flow = (message: Buffer) => (call.send(message) ? undefined : call.drained());
      const stopFollowing = process.subscribe((event) => {
        if (event.type === "stdout") return flow(new ProtoWriter().bytes(2, event.bytes).finish());
        if (event.type === "stderr") return flow(new ProtoWriter().bytes(3, event.bytes).finish());
        if (event.type !== "exit") return undefined;
        call.send(new ProtoWriter().bytes(4, new ProtoWriter().varint(1, event.exitCode)).finish());
        resolve();
        return undefined;
      });
      // A client that cancels the stream ends the process, as sandboxd kills a child whose Start stream is gone.
      call.signal.addEventListener(
        "abort",
        () => {
          stopFollowing();
          void process.cancel().finally(resolve);
        },
        { once: true },
      );
    });
  } finally {
    table.delete(id);
  }
}

async function execute(call: GrpcCall, pod: PodRuntime, request: ProtoMessage): Promise<void> {
  const config = readConfig(request.message(1));
  const process = await launch(pod, config);
  await process.closeStdin().catch(() => {});
  const stdout: Uint8Array[] = [];
  const stderr: Uint8Array[] = [];
  const exitCode = await new Promise<number>((resolve) => {
    process.subscribe((event) => {
      if (event.type === "stdout") stdout.push(event.bytes);
      else if (event.type === "stderr") stderr.push(event.bytes);
      else if (event.type === "exit") resolve(event.exitCode);
    });
    call.signal.addEventListener("abort", () => void process.cancel(), { once: true });
  });
  call.send(
    new ProtoWriter().varint(1, exitCode).bytes(2, Buffer.concat(stdout)).bytes(3, Buffer.concat(stderr)).finish(),
  );
}

function processOf(pod: PodRuntime, request: ProtoMessage): PodProcessHandle {
  const id = request.int32(1);
  const process = tableOf(pod).get(id);
  if (process === undefined || process.exited) throw new GrpcError(GRPC.NOT_FOUND, `process ${id} not found`);
  return process;
}

async function writeStdin(call: GrpcCall, pod: PodRuntime, request: ProtoMessage): Promise<void> {
  const process = processOf(pod, request);
  if (request.has(3)) await process.closeStdin();
  else await process.write(request.bytes(2) ?? Buffer.alloc(0));
  call.send(Buffer.alloc(0));
}

async function sendSignal(call: GrpcCall, pod: PodRuntime, request: ProtoMessage): Promise<void> {
  const process = processOf(pod, request);
  const signal = SIGNALS[request.int32(2)];
  if (signal === undefined) throw new GrpcError(GRPC.INVALID_ARGUMENT, `unsupported signal ${request.int32(2)}`);
  await process.signal(signal);
  call.send(Buffer.alloc(0));
}

async function resize(call: GrpcCall, pod: PodRuntime, request: ProtoMessage): Promise<void> {
  const process = processOf(pod, request);
  const cols = request.uint32(2);
  const rows = request.uint32(3);
  if (cols === 0 || rows === 0) throw new GrpcError(GRPC.INVALID_ARGUMENT, "cols and rows must be positive");
  if (!(await process.resize(cols, rows))) {
    throw new GrpcError(GRPC.FAILED_PRECONDITION, `process ${request.int32(1)} has no PTY`);
  }
  call.send(Buffer.alloc(0));
}
