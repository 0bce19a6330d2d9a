import type { ArgvExecRequest, ExecResult, SandboxHandle, SandboxRuntime } from "@sandport/core";
import { backendEvents } from "../harness/backend-events.js";
import { type ExecProgram, KILLED } from "./exec-process.js";
import { messageOf } from "./grpc-status.js";

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

/**
 * A real command on the backend runtime, streamed: output reaches the exec's
 * logs as it is produced. The port delivers output as UTF-8 text, so bytes
 * that are not valid UTF-8 arrive replaced (files are binary-safe; command
 * output is not). A command killed (by its timeout, `kill` or the sandbox's
 * end) ends with SIGKILL.
 */
export function commandProgram(spec: CommandSpec): ExecProgram {
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
        if (event.type === "stdout" && spec.pipeStdout) io.stdout.append(Buffer.from(event.data, "utf8"));
        if (event.type === "stderr" && spec.pipeStderr) io.stderr.append(Buffer.from(event.data, "utf8"));
      }
    } catch (error) {
      if (!started) throw error;
      if (!io.signal.aborted) io.stderr.append(Buffer.from(`emulator: the backend failed: ${messageOf(error)}\n`));
      return KILLED;
    }
    if (result === undefined || result.exitCode === null) return KILLED;
    return { code: result.exitCode };
  };
}
