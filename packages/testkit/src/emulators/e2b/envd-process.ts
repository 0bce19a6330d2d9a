/**
 * envd `process.Process` over Connect JSON: Start and Connect (server
 * streams of start / data / end events), List and SendSignal; the input
 * procedures are in `envd-input.ts`. A Start with `pty` runs its process on a
 * real terminal (the backend's `openTerminal`), whose bytes come as `data.pty`;
 * Update resizes it.
 *
 * @module
 */

import { MAX_OUTPUT_BYTES, MAX_TERMINAL_CELLS, SandportError, type TerminalSize } from "@sandport/core";
import { type RpcContext, RpcError, type RpcStream, rpcRoute } from "../harness/connect-rpc.js";
import type { EmulatorServer } from "../harness/http-server.js";
import type { E2BContext } from "./context.js";
import { envdGuard, envdUnaryRoutes, sandboxOf, selectProcess } from "./envd-guard.js";
import { toRpcError } from "./errors.js";
import { E2B_HOME, toBackendCwd, toSandboxAbsolute } from "./paths.js";
import type { EmulatedProcess, ProcessConfig, ProcessEvent } from "./process-table.js";

const SERVICE = "process.Process";
/** A process with no deadline still needs one for the port: the longest sandbox life. */
const UNBOUNDED_MS = 24 * 60 * 60 * 1000;

export function registerEnvdProcess(server: Pick<EmulatorServer, "route">, context: E2BContext): void {
  const guard = envdGuard(context, "rpc");
  const unary = envdUnaryRoutes(server, context, SERVICE);

  server.route(
    rpcRoute(
      SERVICE,
      "Start",
      { kind: "server-stream", handler: (request, stream, rpc) => start(context, request, stream, rpc) },
      { guard },
    ),
  );
  server.route(
    rpcRoute(
      SERVICE,
      "Connect",
      { kind: "server-stream", handler: (request, stream, rpc) => connect(request, stream, rpc) },
      { guard },
    ),
  );

  unary("List", async (_request, sandbox) => ({
    processes: sandbox.data.processes.list().map((process) => ({
      config: configJson(process.config),
      pid: process.pid,
      ...(process.tag === undefined ? {} : { tag: process.tag }),
    })),
  }));

  unary("Update", async (request, sandbox) => {
    const process = selectProcess(sandbox, request.process);
    if (request.pty === undefined || request.pty === null) return {};
    try {
      await process.resize(readPtySize(request.pty));
    } catch (error) {
      throw toRpcError(error);
    }
    return {};
  });

  unary("SendSignal", async (request, sandbox) => {
    const process = selectProcess(sandbox, request.process);
    const signal = request.signal;
    const known = ["SIGNAL_SIGKILL", "SIGNAL_SIGTERM", 9, 15];
    if (!known.includes(signal as string | number))
      throw new RpcError("invalid_argument", `unsupported signal ${JSON.stringify(signal)}`);
    process.kill();
    return {};
  });
}

function configJson(config: ProcessConfig) {
  return {
    cmd: config.cmd,
    args: [...config.args],
    envs: { ...config.envs },
    ...(config.cwd === undefined ? {} : { cwd: config.cwd }),
  };
}

/** `PTY { Size size { uint32 cols; uint32 rows } }`: a size a terminal can have. */
function readPtySize(value: unknown): TerminalSize {
  const size = ((value ?? {}) as Record<string, unknown>).size as Record<string, unknown> | undefined;
  const cols = Number(size?.cols);
  const rows = Number(size?.rows);
  const valid = (cells: number) => Number.isInteger(cells) && cells >= 1 && cells <= MAX_TERMINAL_CELLS;
  if (!valid(cols) || !valid(rows))
    throw new RpcError("invalid_argument", "pty.size needs cols and rows from 1 to 65535");
  return { cols, rows };
}

function readConfig(value: unknown): ProcessConfig {
  if (typeof value !== "object" || value === null) throw new RpcError("invalid_argument", "process is required");
  const raw = value as Record<string, unknown>;
  if (typeof raw.cmd !== "string" || raw.cmd === "") throw new RpcError("invalid_argument", "process.cmd is required");
  const args = raw.args ?? [];
  if (!Array.isArray(args) || args.some((arg) => typeof arg !== "string")) {
    throw new RpcError("invalid_argument", "process.args must be strings");
  }
  const envs = (raw.envs ?? {}) as Record<string, unknown>;
  if (typeof envs !== "object" || Object.values(envs).some((env) => typeof env !== "string")) {
    throw new RpcError("invalid_argument", "process.envs must map names to strings");
  }
  if (raw.cwd !== undefined && typeof raw.cwd !== "string")
    throw new RpcError("invalid_argument", "process.cwd must be a string");
  return {
    cmd: raw.cmd,
    args: args as string[],
    envs: envs as Record<string, string>,
    ...(raw.cwd === undefined || raw.cwd === "" ? {} : { cwd: raw.cwd }),
  };
}

/**
 * Forward process events to a stream until the process ends, the client goes
 * away, or the stream's deadline passes (then `onDeadline` runs and the stream
 * ends with `deadline_exceeded`). Sends keepalives at the client's requested interval.
 */
async function follow(
  process: EmulatedProcess,
  stream: RpcStream,
  rpc: RpcContext,
  pending: ProcessEvent[],
  subscribe: (listener: (event: ProcessEvent) => void) => () => void,
  onDeadline: () => void,
): Promise<void> {
  let finish!: (outcome: "ended" | "gone" | "deadline") => void;
  const outcome = new Promise<"ended" | "gone" | "deadline">((resolve) => {
    finish = resolve;
  });
  const forward = (event: ProcessEvent) => {
    stream.send({ event });
    if ("end" in event) finish("ended");
  };
  for (const event of pending) forward(event);
  const unsubscribe = subscribe(forward);
  if (!process.running && !pending.some((event) => "end" in event)) finish("ended");
  const onGone = () => finish("gone");
  rpc.signal.addEventListener("abort", onGone, { once: true });
  const deadline = rpc.timeoutMs === undefined ? undefined : setTimeout(() => finish("deadline"), rpc.timeoutMs);
  const keepaliveSeconds = Number(rpc.exchange.header("keepalive-ping-interval"));
  const keepalive =
    Number.isFinite(keepaliveSeconds) && keepaliveSeconds > 0
      ? setInterval(() => stream.send({ event: { keepalive: {} } }), keepaliveSeconds * 1000)
      : undefined;
  try {
    const result = await outcome;
    if (result === "deadline") {
      unsubscribe();
      onDeadline();
      throw new RpcError("deadline_exceeded", `the request deadline of ${rpc.timeoutMs} ms passed`);
    }
  } finally {
    unsubscribe();
    rpc.signal.removeEventListener("abort", onGone);
    clearTimeout(deadline);
    clearInterval(keepalive);
  }
}

async function start(
  context: E2BContext,
  request: Record<string, unknown>,
  stream: RpcStream,
  rpc: RpcContext,
): Promise<void> {
  const sandbox = sandboxOf(rpc.exchange);
  const pty = request.pty === undefined || request.pty === null ? undefined : readPtySize(request.pty);
  const config = readConfig(request.process);
  let cwd: string | undefined;
  try {
    cwd = config.cwd === undefined ? undefined : toBackendCwd(config.cwd);
    // Without spawn, a stdin process starts in a wrapper at the workspace root: check its cwd the way the backend would.
    const inWorkspace = cwd !== undefined && !cwd.startsWith("/");
    if (cwd !== undefined && inWorkspace && request.stdin === true && !context.backend.spawn && context.backend.stat) {
      const info = await context.backend.stat(sandbox.data.handle, cwd, { timeoutMs: 60_000 });
      if (info.kind !== "directory") throw new RpcError("invalid_argument", `cwd ${config.cwd} is not a directory`);
    }
  } catch (error) {
    throw toRpcError(error);
  }
  // Events produced before the stream follows the process (start, early output) wait here.
  const pending: ProcessEvent[] = [];
  let live: ((event: ProcessEvent) => void) | undefined;
  const listener = (event: ProcessEvent) => (live ? live(event) : pending.push(event));
  let process: EmulatedProcess;
  try {
    process = await sandbox.data.processes.start({
      backend: context.backend,
      handle: sandbox.data.handle,
      config,
      request: {
        argv: [config.cmd, ...config.args],
        ...(cwd === undefined ? {} : { cwd }),
        env: { ...sandbox.data.envVars, ...config.envs },
        timeoutMs: UNBOUNDED_MS,
        maxOutputBytes: MAX_OUTPUT_BYTES,
      },
      stdin: request.stdin === true && pty === undefined,
      ...(pty === undefined ? {} : { pty }),
      ...(typeof request.tag === "string" ? { tag: request.tag } : {}),
      listener,
    });
  } catch (error) {
    // envd checks the directory before it starts anything (process handler: "cwd '<path>' does not exist").
    if (SandportError.hasCode(error, "NOT_FOUND") && error.details?.cwd !== undefined) {
      const absolute = cwd === undefined || cwd.startsWith("/") ? (cwd ?? E2B_HOME) : toSandboxAbsolute(cwd);
      throw new RpcError("invalid_argument", `cwd '${absolute}' does not exist`);
    }
    throw toRpcError(error);
  }
  // envd runs the command under the Start request's deadline, not under its
  // connection: a client that goes away leaves the command running, but the
  // deadline still kills it.
  const deadlineAt = rpc.timeoutMs === undefined ? undefined : Date.now() + rpc.timeoutMs;
  try {
    await follow(
      process,
      stream,
      rpc,
      pending,
      (forward) => {
        live = forward;
        return () => {
          live = () => {};
        };
      },
      () => process.kill(),
    );
  } finally {
    if (deadlineAt !== undefined && process.running) {
      const timer = setTimeout(() => process.kill(), Math.max(0, deadlineAt - Date.now()));
      timer.unref();
      void process.done.then(() => clearTimeout(timer));
    }
  }
}

async function connect(request: Record<string, unknown>, stream: RpcStream, rpc: RpcContext): Promise<void> {
  const sandbox = sandboxOf(rpc.exchange);
  const process = selectProcess(sandbox, request.process);
  await follow(
    process,
    stream,
    rpc,
    [{ start: { pid: process.pid } }],
    (forward) => process.subscribe(forward),
    // A Connect deadline ends only this stream; the process keeps running.
    () => {},
  );
}
