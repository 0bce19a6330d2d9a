import type {
  ArgvExecRequest,
  ExecEvent,
  ExecResult,
  SandboxHandle,
  SandboxProcess,
  SandboxRuntime,
} from "@sandport/core";
import { backendEvents } from "../harness/backend-events.js";
import { type ExecIo, type ExecProgram, type ExitStatus, KILLED } from "./exec-process.js";
import { messageOf } from "./grpc-status.js";

/** Deadline of the backend's `spawn` call (the start only; the run has the request's own timeout). */
const SPAWN_TIMEOUT_MS = 60_000;

/** What {@link commandProgram} runs. */
export interface CommandSpec {
  readonly backend: SandboxRuntime;
  readonly handle: SandboxHandle;
  /** The request for the backend: argv, cwd and env mapped, a timeout always set. */
  readonly request: ArgvExecRequest & { readonly timeoutMs: number };
  /** Keep stdout / stderr (`..._CONFIG_PIPE`) or drop it (`..._CONFIG_DEVNULL`). */
  readonly pipeStdout: boolean;
  readonly pipeStderr: boolean;
}

/** True when commands get their stdin from the client: the backend can start a process with stdin left open. */
export function commandsTakeStdin(backend: SandboxRuntime): boolean {
  return typeof backend.spawn === "function";
}

/**
 * A real command on the backend runtime, streamed: output reaches the exec's
 * logs as it is produced, as the bytes the backend reports (exact where its
 * `binaryOutput` is `true`, as `LocalRuntime`'s is; else the UTF-8 of its
 * text). Where the backend has `spawn`, the command's stdin is what the client
 * writes (`TaskExecStdinWrite*`) until it sends end-of-file; otherwise it is
 * closed from the start. A command killed (by its timeout, `kill` or the
 * sandbox's end) ends with SIGKILL.
 */
export function commandProgram(spec: CommandSpec): ExecProgram {
  return commandsTakeStdin(spec.backend) ? interactiveProgram(spec) : streamedProgram(spec);
}

function interactiveProgram(spec: CommandSpec): ExecProgram {
  return async (io) => {
    const spawn = spec.backend.spawn as NonNullable<SandboxRuntime["spawn"]>;
    const process: SandboxProcess = await spawn.call(spec.backend, spec.handle, spec.request, {
      signal: io.signal,
      timeoutMs: SPAWN_TIMEOUT_MS,
    });
    io.started();
    io.stdin.forwardTo({ write: (bytes) => process.write(bytes), close: () => process.closeStdin() });
    try {
      for await (const event of process.events) keep(spec, io, event);
    } catch (error) {
      return lost(io, error);
    }
    return exitOf(await process.result.catch(() => undefined));
  };
}

function streamedProgram(spec: CommandSpec): ExecProgram {
  return async (io) => {
    const op = { signal: io.signal, timeoutMs: spec.request.timeoutMs };
    const events = backendEvents(spec.backend, spec.handle, spec.request, op);
    let result: ExecResult | undefined;
    let started = false;
    try {
      for await (const event of events) {
        if (event.type === "exited") {
          result = event.result;
          continue;
        }
        started = true;
        io.started();
        keep(spec, io, event);
      }
    } catch (error) {
      if (!started) throw error;
      return lost(io, error);
    }
    return exitOf(result);
  };
}

/** Appends an output event's bytes to the exec's log of that stream, when the stream is piped. */
function keep(spec: CommandSpec, io: ExecIo, event: ExecEvent): void {
  if (event.type === "stdout" && spec.pipeStdout) io.stdout.append(event.bytes);
  if (event.type === "stderr" && spec.pipeStderr) io.stderr.append(event.bytes);
}

/** The backend lost a running command: say so on stderr (unless it was killed) and report SIGKILL. */
function lost(io: ExecIo, error: unknown): ExitStatus {
  if (!io.signal.aborted) io.stderr.append(Buffer.from(`emulator: the backend failed: ${messageOf(error)}\n`));
  return KILLED;
}

function exitOf(result: ExecResult | undefined): ExitStatus {
  if (result === undefined || result.exitCode === null) return KILLED;
  return { code: result.exitCode };
}
