import { EXEC_MARKER_ENV } from "@sandport/core";
import { markerSweepScript, type VendorEnd } from "@sandport/core/adapter";
import type { OutputSink, PlaneProcess, ProcessPlane } from "./data-plane.js";
import { isNotFound } from "./errors.js";
import { type Sandboxd, SIGNALS } from "./internal/sandboxd.js";

/**
 * sandboxd's process service as a data plane: `Start` streams `init`
 * (the process id), stdout and stderr bytes, then `exit`; stdin is
 * `WriteStdin` (bytes, then EOF); a kill is `SendSignal(SIGKILL)` to the
 * process group, then a second process that kills every process carrying
 * the command's marker (`markerSweepScript`): a child that left the group
 * (`setsid`, a job of its own) outlives the group's signal. An exit code of -1 is sandboxd's (Go's) word for a
 * process ended by a signal: killed. A stream that ends without `exit`
 * is a lost run (the process may still run).
 */
export function sandboxdPlane(sandboxd: Sandboxd, requestMs: () => number): ProcessPlane {
  return {
    start: (pod, script, marker, output: OutputSink, signal, pty) =>
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
      }),
  };
}
