import type { ArgvExecRequest, ExecEvent, ExecResult, OpOptions, SandboxHandle, SandboxRuntime } from "@sandport/core";

/**
 * A command's events from a backend: the backend's own stream where it has
 * `execStream`, else the result of `exec` replayed as events. Without
 * streaming the command still runs; its output then arrives in one piece at
 * the end, each stream's bytes being the UTF-8 encoding of its text.
 */
export function backendEvents(
  backend: SandboxRuntime,
  handle: SandboxHandle,
  request: ArgvExecRequest,
  op: OpOptions,
): AsyncIterable<ExecEvent> {
  if (backend.execStream) return backend.execStream(handle, request, op);
  return bufferedEvents(backend.exec(handle, request, op));
}

async function* bufferedEvents(pending: Promise<ExecResult>): AsyncIterable<ExecEvent> {
  yield { type: "started" };
  const result = await pending;
  const encoder = new TextEncoder();
  if (result.stdout) yield { type: "stdout", data: result.stdout, bytes: encoder.encode(result.stdout) };
  if (result.stderr) yield { type: "stderr", data: result.stderr, bytes: encoder.encode(result.stderr) };
  yield { type: "exited", result };
}
