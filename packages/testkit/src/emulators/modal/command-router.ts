/**
 * The task command router (`modal.task_command_router.TaskCommandRouter`):
 * exec start, output streams (resumable at a byte offset), wait, poll, and
 * stdin (read whole by the filesystem helper, forwarded to commands; see
 * `command-program.ts`).
 *
 * @module
 */

import { MAX_OUTPUT_BYTES, SandportError } from "@sandport/core";
import { backendCwd } from "../harness/backend-cwd.js";
import { commandProgram, commandsTakeStdin } from "./command-program.js";
import { type ModalContext, unary } from "./context.js";
import { stringMap } from "./control-plane.js";
import { ExecProcess, type ExitStatus } from "./exec-process.js";
import { fsToolsProgram, isFsToolsCommand, notEmulatedFsTool } from "./fs-tools.js";
import type { GrpcCallContext, WireJson } from "./grpc-server.js";
import { GrpcError, messageOf, toGrpcError } from "./grpc-status.js";
import { NOT_YET_EMULATED, refuseNotYetEmulated } from "./interactive.js";
import { checkEnvKeys, checkExecArgs } from "./request-rules.js";
import type { EmulatedSandbox } from "./sandbox.js";
import { secretEnv } from "./sandbox-lifecycle.js";

const ROUTER = "rpc modal.task_command_router.TaskCommandRouter";
/** A command without a timeout still needs one for the port: the longest sandbox life. */
const UNBOUNDED_MS = 24 * 60 * 60 * 1000;
/** Largest output message sent (the SDK accepts up to 100 MiB). */
const MAX_CHUNK_BYTES = 1024 * 1024;

/** Implement the command router's exec methods on the emulator. */
export function registerCommandRouter(context: ModalContext): void {
  const implement = (
    method: string,
    handle: (request: WireJson, call: GrpcCallContext) => Promise<WireJson> | WireJson,
  ) => context.implement("commandRouter", method, unary(handle));

  implement("TaskExecStart", async (request, call) => {
    const sandbox = taskSandbox(context, request.taskId, call);
    const execId = String(request.execId ?? "");
    if (execId === "") throw new GrpcError("INVALID_ARGUMENT", "execId is required");
    const argv = Array.isArray(request.commandArgs) ? request.commandArgs.map(String) : [];
    if (argv.length === 0) throw new GrpcError("INVALID_ARGUMENT", "commandArgs is required");
    checkExecArgs(argv);
    const existing = sandbox.findExec(execId);
    if (existing) {
      // A retried start (its answer was lost) is the same exec, not a second one.
      if (JSON.stringify(existing.argv) === JSON.stringify(argv)) return {};
      throw new GrpcError("ALREADY_EXISTS", `exec ${execId} already exists`);
    }
    if (request.ptyInfo !== undefined) {
      context.logNotEmulated(`${ROUTER}/TaskExecStart`, "pty");
      throw new GrpcError("UNIMPLEMENTED", "PTY execs are not emulated");
    }
    if (typeof request.containerId === "string" && request.containerId !== "") {
      context.logNotEmulated(`${ROUTER}/TaskExecStart`, "sidecar containers");
      throw new GrpcError("UNIMPLEMENTED", "sidecar containers are not emulated");
    }
    let exec: ExecProcess;
    if (isFsToolsCommand(argv)) {
      const missing = notEmulatedFsTool(argv);
      if (missing) {
        context.logNotEmulated(`${ROUTER}/TaskExecStart`, missing);
        throw new GrpcError("UNIMPLEMENTED", `${missing} is not emulated`);
      }
      const helper = fsToolsProgram(argv, { backend: context.backend, handle: sandbox.handle, paths: context.paths });
      exec = new ExecProcess(execId, argv, helper.readsStdin, helper.program);
    } else {
      const env = { ...stringMap(request.env), ...secretEnv(context, request.secretIds, request.secretSources) };
      checkEnvKeys(env);
      exec = new ExecProcess(
        execId,
        argv,
        commandsTakeStdin(context.backend),
        commandProgram({
          backend: context.backend,
          handle: sandbox.handle,
          request: {
            argv,
            ...cwdOf(context, sandbox, request.workdir),
            env,
            timeoutMs: request.timeoutSecs ? Number(request.timeoutSecs) * 1000 : UNBOUNDED_MS,
            maxOutputBytes: MAX_OUTPUT_BYTES,
          },
          pipeStdout: request.stdoutConfig === "TASK_EXEC_STDOUT_CONFIG_PIPE",
          pipeStderr: request.stderrConfig === "TASK_EXEC_STDERR_CONFIG_PIPE",
        }),
      );
    }
    sandbox.addExec(exec);
    try {
      await exec.started;
    } catch (error) {
      sandbox.removeExec(execId);
      if (SandportError.hasCode(error, "NOT_FOUND") && error.details?.cwd !== undefined) {
        const { cwd } = cwdOf(context, sandbox, request.workdir);
        const absolute =
          cwd === undefined ? context.paths.root : cwd.startsWith("/") ? cwd : `${context.paths.root}/${cwd}`;
        throw new GrpcError("NOT_FOUND", `workdir ${absolute} does not exist`);
      }
      throw toGrpcError(error);
    }
    return {};
  });

  context.implement("commandRouter", "TaskExecStdioRead", {
    kind: "serverStream",
    handle: async (request, call, send) => {
      const exec = taskSandbox(context, request.taskId, call).exec(String(request.execId ?? ""));
      const descriptor = request.fileDescriptor ?? "TASK_EXEC_STDIO_FILE_DESCRIPTOR_STDOUT";
      const log =
        descriptor === "TASK_EXEC_STDIO_FILE_DESCRIPTOR_STDOUT"
          ? exec.stdout
          : descriptor === "TASK_EXEC_STDIO_FILE_DESCRIPTOR_STDERR"
            ? exec.stderr
            : undefined;
      if (!log) throw new GrpcError("INVALID_ARGUMENT", `unsupported file descriptor ${String(descriptor)}`);
      for await (const chunk of log.read(Number(request.offset ?? 0), MAX_CHUNK_BYTES, call.signal)) {
        await send({ data: chunk.toString("base64") });
      }
    },
  });

  implement("TaskExecWait", async (request, call) => {
    const exec = taskSandbox(context, request.taskId, call).exec(String(request.execId ?? ""));
    const status = await Promise.race([
      exec.done,
      new Promise<undefined>((resolve) =>
        call.signal.addEventListener("abort", () => resolve(undefined), { once: true }),
      ),
    ]);
    if (status === undefined) throw new GrpcError("CANCELLED", "the wait was cancelled");
    return exitJson(status);
  });

  implement("TaskExecPoll", (request, call) => {
    const exec = taskSandbox(context, request.taskId, call).exec(String(request.execId ?? ""));
    return exec.exit ? exitJson(exec.exit) : {};
  });

  implement("TaskExecStdinWrite", async (request, call) => {
    const exec = taskSandbox(context, request.taskId, call).exec(String(request.execId ?? ""));
    await writeStdin(context, `${ROUTER}/TaskExecStdinWrite`, exec, request.offset, request.data, request.eof === true);
    return {};
  });

  context.implement("commandRouter", "TaskExecStdinWriteStream", {
    kind: "clientStream",
    handle: async (requests, call) => {
      let exec: ExecProcess | undefined;
      let offset = 0;
      for await (const message of requests) {
        if (message.start !== undefined) {
          const start = message.start as WireJson;
          exec = taskSandbox(context, start.taskId, call).exec(String(start.execId ?? ""));
          offset = Number(start.offset ?? 0);
        } else if (!exec) {
          throw new GrpcError("INVALID_ARGUMENT", "the stream must begin with a start message");
        } else if (message.data !== undefined) {
          const data = Buffer.from(String(message.data), "base64");
          await writeStdin(context, `${ROUTER}/TaskExecStdinWriteStream`, exec, offset, message.data, false);
          offset += data.length;
        } else if (message.end !== undefined) {
          await writeStdin(context, `${ROUTER}/TaskExecStdinWriteStream`, exec, offset, undefined, true);
        }
      }
      return {};
    },
  });

  implement("TaskExecStdinStatus", (request, call) => {
    const exec = taskSandbox(context, request.taskId, call).exec(String(request.execId ?? ""));
    return { numBytesWritten: exec.stdin.written, closed: exec.stdin.closed };
  });
}

/** The running sandbox of a task the call's router JWT grants; counts as activity. */
function taskSandbox(context: ModalContext, taskId: unknown, call: GrpcCallContext): EmulatedSandbox {
  const granted = context.auth.routerTask(call);
  if (taskId !== granted)
    throw new GrpcError("PERMISSION_DENIED", `the router token is for task ${granted}, not ${String(taskId)}`);
  const sandbox = context.state.sandboxesByTask.get(granted);
  if (!sandbox?.running) throw new GrpcError("NOT_FOUND", `task ${granted} not found (its sandbox has finished)`);
  sandbox.touch();
  return sandbox;
}

/** Hands stdin bytes (base64 in proto3 JSON) to an exec; resolves once they were taken (or handed on). */
async function writeStdin(
  context: ModalContext,
  route: string,
  exec: ExecProcess,
  offset: unknown,
  data: unknown,
  eof: boolean,
): Promise<void> {
  const bytes = typeof data === "string" ? Buffer.from(data, "base64") : Buffer.alloc(0);
  if (bytes.length > 0 && !exec.stdin.accepting) refuseNotYetEmulated(context, route, NOT_YET_EMULATED.stdin);
  try {
    await exec.stdin.write(Number(offset ?? 0), bytes, eof);
  } catch (error) {
    // The command ended while the bytes were on their way: its stdin is gone, as after a close.
    if (error instanceof GrpcError) throw error;
    throw new GrpcError("FAILED_PRECONDITION", `stdin is closed: ${messageOf(error)}`);
  }
}

/**
 * An exec's `workdir` for the backend: under the workspace, relative; any
 * other absolute directory (`/tmp`) as it is, since a Modal exec runs
 * anywhere in its container. Without one, the sandbox's own workdir.
 */
function cwdOf(context: ModalContext, sandbox: EmulatedSandbox, workdir: unknown): { cwd?: string } {
  let cwd: string | undefined = sandbox.settings.workdir;
  if (typeof workdir === "string") {
    try {
      cwd = backendCwd(workdir, context.paths.root);
    } catch (error) {
      if (SandportError.isInstance(error)) throw new GrpcError("INVALID_ARGUMENT", `workdir: ${error.message}`);
      throw error;
    }
  }
  return cwd === undefined || cwd === "" ? {} : { cwd };
}

function exitJson(status: ExitStatus): WireJson {
  return "code" in status ? { code: status.code } : { signal: status.signal };
}
