import { type ExecEvent, type ExecResult, exitStatus, KILLED_EXIT_STATUS, SandportError } from "@sandport/core";
import { unsupportedFunctionality } from "./internal/unsupported.js";
import { outputStreams } from "./output-streams.js";
import { opOptions, type SessionContext, shellRequest } from "./session-context.js";

/** The AI SDK's `spawn` options. */
export interface SpawnRequest {
  readonly command: string;
  readonly workingDirectory?: string;
  readonly env?: Record<string, string>;
  readonly abortSignal?: AbortSignal;
  readonly stdin?: boolean;
}

/** A running command as the AI SDK sees it (its `SandboxProcess`). */
export interface SessionProcess {
  readonly pid?: number;
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array>;
  wait(): Promise<{ exitCode: number }>;
  kill(): Promise<void>;
}

/** A running command with its stdin open (the AI SDK's `WritableSandboxProcess`). */
export interface WritableSessionProcess extends SessionProcess {
  readonly stdin: WritableStream<Uint8Array>;
}

/**
 * `spawn`: through the port's `spawn` when the runtime has it (stdin closed at
 * once unless `stdin: true`), else through `execStream` (no stdin). A runtime
 * with neither, or `stdin: true` without `spawn`, rejects with the AI SDK's
 * `UnsupportedFunctionalityError` before anything starts. Resolves once the
 * command runs; a command that cannot start rejects.
 */
export async function spawnProcess(
  context: SessionContext,
  request: SpawnRequest,
): Promise<SessionProcess | WritableSessionProcess> {
  const { runtime, handle } = context;
  const wantsStdin = request.stdin === true;
  if (wantsStdin && !runtime.spawn) {
    throw await unsupportedFunctionality(
      runtime.provider,
      "spawn with writable stdin",
      "spawn (interactive processes)",
    );
  }
  if (!runtime.spawn && !runtime.execStream) {
    throw await unsupportedFunctionality(runtime.provider, "spawn", "spawn or execStream");
  }
  request.abortSignal?.throwIfAborted();
  const exec = shellRequest(context, request);
  if (runtime.spawn) {
    const process = await runtime.spawn(handle, exec, opOptions(request.abortSignal));
    if (!wantsStdin) await process.closeStdin();
    const running = await follow(process.events, () => process.result, request.abortSignal);
    const base = { ...running, kill: () => process.kill() };
    if (!wantsStdin) return base;
    const stdin = new WritableStream<Uint8Array>({
      write: (chunk) => process.write(chunk),
      close: () => process.closeStdin(),
      abort: () => process.closeStdin(),
    });
    return { ...base, stdin };
  }
  const killer = new AbortController();
  const signal = request.abortSignal ? AbortSignal.any([request.abortSignal, killer.signal]) : killer.signal;
  const events = runtime.execStream!(handle, exec, { signal });
  const running = await follow(events, undefined, request.abortSignal, () => killer.signal.aborted);
  return {
    ...running,
    kill: async () => {
      killer.abort(new Error("killed through the AI SDK process handle"));
    },
  };
}

/**
 * Reads the first event (so a command that cannot start rejects here), then
 * feeds the rest to the output streams in the background. `wait()` resolves
 * with the exit status (a kill maps to 137, a timeout to 124: see
 * `exitStatus`), or rejects with the abort reason once `abortSignal` fired.
 */
async function follow(
  events: AsyncIterable<ExecEvent>,
  result: (() => Promise<ExecResult>) | undefined,
  abortSignal: AbortSignal | undefined,
  killed: () => boolean = () => false,
): Promise<Omit<SessionProcess, "kill">> {
  const iterator = events[Symbol.asyncIterator]();
  const first = await iterator.next();
  const streams = outputStreams();
  const pid = !first.done && first.value.type === "started" ? first.value.pid : undefined;
  const finished = (async (): Promise<number> => {
    let exited: ExecResult | undefined;
    try {
      for (let next = first; !next.done; next = await iterator.next()) {
        streams.push(next.value);
        if (next.value.type === "exited") exited = next.value.result;
      }
    } catch (error) {
      const byKill = killed() && SandportError.isInstance(error) && error.code === "ABORTED";
      if (!byKill || abortSignal?.aborted) {
        streams.fail(error);
        throw error;
      }
      streams.close();
      return KILLED_EXIT_STATUS;
    }
    streams.close();
    const final = exited ?? (await result?.());
    if (!final) throw new SandportError({ code: "UNEXPECTED", message: "the command's events ended without an exit" });
    return exitStatus(final);
  })();
  // `wait()` may never be called: the failure is still the caller's through the streams.
  finished.catch(() => {});
  return {
    ...(pid === undefined ? {} : { pid }),
    stdout: streams.stdout,
    stderr: streams.stderr,
    wait: async () => {
      const exitCode = await finished.catch((error: unknown) => {
        if (abortSignal?.aborted) throw abortSignal.reason;
        throw error;
      });
      if (abortSignal?.aborted) throw abortSignal.reason;
      return { exitCode };
    },
  };
}
