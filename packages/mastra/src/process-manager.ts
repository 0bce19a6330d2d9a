import { randomUUID } from "node:crypto";
import type { ProcessHandle, ProcessInfo, SandboxProcessManager, SpawnProcessOptions } from "@mastra/core/workspace";
import type { BridgeContext } from "./context.js";
import { commandRequest } from "./execute-command.js";
import { handleClasses } from "./process-handles.js";
import { toMastraSandboxError } from "./sandbox-errors.js";

/** Whether the runtime can start processes that outlive a call: `spawn`, or the async-command trio. */
export function canStartProcesses(context: Pick<BridgeContext, "runtime">): boolean {
  const { runtime } = context;
  return (
    runtime.spawn !== undefined ||
    (runtime.startCommand !== undefined && runtime.commandStatus !== undefined && runtime.commandLogs !== undefined)
  );
}

/**
 * Mastra's process manager over the port: `spawn` through the port's `spawn`
 * where the runtime has it (live output, `sendStdin`, `closeStdin`, `kill`;
 * `stdinMode: "ignore"` closes stdin at once), else through `startCommand`
 * (output polled every 100 ms; `sendStdin` and `kill` are Mastra's
 * `SandboxUnsupportedFeatureError`, as the port cannot do them there). The
 * working directory may be any directory of the sandbox (`/tmp`); one the
 * port refuses (a `..` segment) is Mastra's `PermissionError`, a missing one
 * the port's `NOT_FOUND`.
 */
export function createProcessManager(context: BridgeContext): SandboxProcessManager {
  const { Spawned, Started } = handleClasses(context);
  let next = 1;

  class SandportProcessManager extends context.mastra.SandboxProcessManager {
    override async spawn(command: string, options: SpawnProcessOptions = {}): Promise<ProcessHandle> {
      const { runtime } = context;
      const request = commandRequest(context, command, undefined, options);
      const op = options.abortSignal === undefined ? {} : { signal: options.abortSignal };
      let handle: ProcessHandle;
      /** The port's call, its refusal of the working directory as Mastra's `PermissionError`. */
      const started = async <T>(call: () => Promise<T>): Promise<T> => {
        try {
          return await call();
        } catch (error) {
          throw toMastraSandboxError(context.mastra, error, { cwd: options.cwd ?? request.cwd });
        }
      };
      if (runtime.spawn) {
        const process = await started(() => runtime.spawn!(context.handle(), request, op));
        if (options.stdinMode === "ignore") await process.closeStdin();
        const events = process.events[Symbol.asyncIterator]();
        const first = await events.next();
        const pid =
          !first.done && first.value.type === "started" && first.value.pid !== undefined ? first.value.pid : undefined;
        handle = new Spawned(
          context,
          pid === undefined ? `p${next++}` : String(pid),
          process,
          events,
          command,
          options,
        );
      } else {
        const sessionId = `mastra-${randomUUID()}`;
        const ref = await started(() => runtime.startCommand!(context.handle(), { ...request, sessionId }, op));
        handle = new Started(context, ref, command, options);
      }
      this._tracked.set(handle.pid, handle);
      return handle;
    }

    override async list(): Promise<ProcessInfo[]> {
      return [...this._tracked.values()].map((handle) => ({
        pid: handle.pid,
        running: handle.exitCode === undefined,
        ...(handle.command === undefined ? {} : { command: handle.command }),
        ...(handle.exitCode === undefined ? {} : { exitCode: handle.exitCode }),
      }));
    }
  }

  return new SandportProcessManager();
}
