import type { ExecEvent } from "@sandport/core";

/** A command's stdout and stderr as the byte streams the AI SDK's process handle exposes. */
export interface OutputStreams {
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array>;
  /** Enqueues an output event's exact bytes on its stream; other events are ignored. */
  push(event: ExecEvent): void;
  /** Ends both streams (the command has exited). */
  close(): void;
  /** Errors both streams (the command was lost). */
  fail(error: unknown): void;
}

/**
 * Two byte streams fed from exec events. A stream the consumer cancelled is
 * skipped from then on; output is bounded by the command's output cap, so
 * an unread stream never grows without limit.
 */
export function outputStreams(): OutputStreams {
  const controllers: Record<"stdout" | "stderr", ReadableStreamDefaultController<Uint8Array> | undefined> = {
    stdout: undefined,
    stderr: undefined,
  };
  const open = { stdout: true, stderr: true };
  const stream = (name: "stdout" | "stderr") =>
    new ReadableStream<Uint8Array>({
      start(controller) {
        controllers[name] = controller;
      },
      cancel() {
        open[name] = false;
      },
    });
  const each = (action: (controller: ReadableStreamDefaultController<Uint8Array>) => void) => {
    for (const name of ["stdout", "stderr"] as const) {
      const controller = controllers[name];
      if (open[name] && controller) action(controller);
      open[name] = false;
    }
  };
  return {
    stdout: stream("stdout"),
    stderr: stream("stderr"),
    push(event) {
      if (event.type !== "stdout" && event.type !== "stderr") return;
      if (open[event.type]) controllers[event.type]?.enqueue(event.bytes);
    },
    close: () => each((controller) => controller.close()),
    fail: (error) => each((controller) => controller.error(error)),
  };
}
