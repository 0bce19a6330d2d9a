import { EXEC_MARKER_ENV, type TerminalSize } from "@sandport/core";
import { markerSweepScript, type VendorEnd } from "@sandport/core/adapter";
import type { OutputSink, PlaneProcess, ProcessPlane } from "./data-plane.js";
import { GrpcStatusError, isNotFound } from "./errors.js";
import { type Sandboxd, SIGNALS } from "./internal/sandboxd.js";

/** How many times a start refused before it began is sent, in all. */
const START_ATTEMPTS = 3;
/** The wait before the second start (twice it before the third). */
const START_BACKOFF_MS = 100;

/**
 * sandboxd's process service as a data plane: `Start` streams `init`
 * (the process id), stdout and stderr bytes, then `exit`; stdin is
 * `WriteStdin` (bytes, then EOF); a kill is `SendSignal(SIGKILL)` to the
 * process group, then a second process that kills every process carrying
 * the command's marker (`markerSweepScript`): a child that left the group
 * (`setsid`, a job of its own) outlives the group's signal. An exit code
 * of -1 is sandboxd's (Go's) word for a process ended by a signal: killed.
 * A stream that ends without `exit` is a lost run (the process may still
 * run). A start the server refused before it began (`UNAVAILABLE`,
 * `RESOURCE_EXHAUSTED`) is sent again, three times in all.
 */
export function sandboxdPlane(sandboxd: Sandboxd, requestMs: () => number): ProcessPlane {
  const startOnce = (
    pod: string,
    script: string,
    marker: string,
    output: OutputSink,
    signal: AbortSignal,
    pty: TerminalSize | undefined,
  ) =>
    new Promise<PlaneProcess>((resolve, reject) => {
      const stream = new AbortController();
      let processId: number | undefined;
      let exitCode: number | undefined;
      const onStartAbort = () => stream.abort(signal.reason);
      signal.addEventListener("abort", onStartAbort, { once: true });
      const done = sandboxd.start(
        pod,
        { command: ["sh", "-c", script] },
        (event) => {
          if (event.kind === "init") {
            processId = event.processId;
            signal.removeEventListener("abort", onStartAbort);
            resolve(started(event.processId));
          } else if (event.kind === "exit") exitCode = event.exitCode;
          else output(event.kind, event.data);
        },
        stream.signal,
        pty,
      );
      const ended: Promise<VendorEnd> = done.then(
        () => {
          if (exitCode === undefined)
            return { kind: "lost", error: new Error("sandboxd ended the stream without an exit event") };
          return exitCode < 0 ? { kind: "killed" } : { kind: "exited", exitCode };
        },
        (error: unknown): VendorEnd => ({ kind: "lost", error }),
      );
      done.catch((error: unknown) => {
        signal.removeEventListener("abort", onStartAbort);
        if (processId === undefined) reject(error);
      });
      const started = (pid: number): PlaneProcess => ({
        pid,
        ended,
        write: (data) => sandboxd.writeStdin(pod, pid, data, AbortSignal.timeout(requestMs())),
        closeStdin: () => sandboxd.writeStdin(pod, pid, undefined, AbortSignal.timeout(requestMs())),
        resize: (size) => sandboxd.resize(pod, pid, size.cols, size.rows, AbortSignal.timeout(requestMs())),
        kill: async (killSignal) => {
          try {
            await sandboxd.sendSignal(pod, pid, SIGNALS.SIGKILL, killSignal);
          } catch (error) {
            // Already gone: nothing left to kill.
            if (!isNotFound(error)) throw error;
          }
          // What left the group (a setsid child, a job of its own) still carries the marker.
          const sweep = { command: ["sh", "-c", markerSweepScript(EXEC_MARKER_ENV, marker)] };
          await sandboxd.start(pod, sweep, () => {}, killSignal);
        },
      });
    });
  return {
    start: async (pod, script, marker, output, signal, pty) => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await startOnce(pod, script, marker, output, signal, pty);
        } catch (error) {
          if (attempt >= START_ATTEMPTS || signal.aborted || !refusedBeforeStart(error)) throw error;
          await new Promise((resolve) => setTimeout(resolve, START_BACKOFF_MS * attempt));
        }
      }
    },
  };
}

/**
 * A `Start` the server refused with `UNAVAILABLE` or `RESOURCE_EXHAUSTED` in
 * its own status, before any event: the router or a gateway could not (or
 * would not yet) reach sandboxd, so nothing was started and the start may be
 * repeated. A stream that broke is not such a refusal: the process may run.
 */
function refusedBeforeStart(error: unknown): boolean {
  if (!(error instanceof GrpcStatusError) || !error.answered) return false;
  return error.grpcStatus === 14 || error.grpcStatus === 8;
}
