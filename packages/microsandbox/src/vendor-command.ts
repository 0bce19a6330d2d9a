import { EXEC_MARKER_ENV, SandportError } from "@sandport/core";
import {
  type CommandRunOptions,
  lostOutput,
  markerSweepScript,
  type PlannedCommand,
  processExited,
  type StdinCommand,
  type VendorEnd,
} from "@sandport/core/adapter";
import { PROVIDER } from "./handle.js";
import type { MsbExecEvent, MsbExecHandle, MsbExecSink, MsbSandbox } from "./internal/sdk-types.js";

/** Largest piece of stdin sent in one `core.exec.stdin` message (agentd's frames hold 4 MiB). */
const STDIN_CHUNK_BYTES = 1024 * 1024;

/**
 * A validated command, ready to send: its env the launch env, then the
 * request's with `EXEC_MARKER_ENV`; its run budget enforced by the engine
 * (the SDK's own exec timeout is not used).
 */
export interface CommandPlan extends PlannedCommand {
  /** The program: `argv[0]`, or `/bin/sh` for a shell script. */
  readonly cmd: string;
  readonly args: readonly string[];
  /** Written to stdin once the command runs, then stdin is closed; `undefined` with an open stdin (spawn). */
  readonly stdin: Uint8Array | undefined;
}

/** The engine's options for `plan`: its run budget and output cap; `signal` as `CommandRunOptions` says. */
export function runOptions(plan: CommandPlan, signal: AbortSignal): CommandRunOptions {
  return { provider: PROVIDER, timeoutMs: plan.timeoutMs, maxOutputBytes: plan.maxOutputBytes, signal };
}

/**
 * microsandbox's vendor command: `execStreamWith` (one agent connection,
 * stdin a pipe), its events read as raw output bytes and its end (`exited`
 * with a code, or `lost` when the stream broke or ended without one: output
 * lost never looks complete), and a kill (`core.exec.signal` 9) followed by
 * the marker sweep of its descendants. Without `openStdin`, the plan's stdin
 * is written and closed once it runs.
 */
export function microsandboxCommand(
  name: string,
  sandbox: MsbSandbox,
  plan: CommandPlan,
  openStdin: boolean,
): StdinCommand {
  let handle: MsbExecHandle | undefined;
  let sink: MsbExecSink | null = null;
  let ended = false;
  const requireSink = (): MsbExecSink => {
    if (sink) return sink;
    throw new SandportError({
      code: "UNEXPECTED",
      provider: PROVIDER,
      retryable: false,
      message: `microsandbox gave no stdin for a command in sandbox ${name}`,
      details: { sandboxId: name },
    });
  };
  const write = async (data: string | Uint8Array) => {
    const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
    for (let offset = 0; offset < bytes.length; offset += STDIN_CHUNK_BYTES) {
      await requireSink().write(bytes.subarray(offset, offset + STDIN_CHUNK_BYTES));
    }
  };
  /** A failed stdin request of a command that has ended is `NOT_FOUND` (the kit reads it as "exited"). */
  const sendStdin = (request: () => Promise<void>) =>
    request().catch((error: unknown) => {
      if (!ended) throw error;
      throw processExited(PROVIDER, error);
    });
  return {
    rawOutput: true,
    start: async (output, signal) => {
      if (signal.aborted) throw signal.reason;
      handle = await sandbox.execStreamWith(plan.cmd, (options) =>
        options
          .args([...plan.args])
          .cwd(plan.cwd)
          .envs({ ...plan.env })
          .stdinPipe(),
      );
      sink = await handle.takeStdin();
      const events = (handle as AsyncIterable<MsbExecEvent | undefined>)[Symbol.asyncIterator]();
      const first = await events.next();
      if (first.done) {
        throw lostOutput(PROVIDER, new Error("the command's event stream ended before it ran"), plan.marker);
      }
      if (first.value === undefined) {
        // First of all, that is agentd's `core.exec.failed`: nothing ran (the SDK drops its reason).
        void readEnd(first.value, events, () => {});
        throw notStarted(name, plan);
      }
      const end = readEnd(first.value, events, output).finally(() => {
        ended = true;
      });
      const pid = first.value.kind === "started" ? first.value.pid : plan.marker;
      if (!openStdin) {
        void (async () => {
          if (plan.stdin && plan.stdin.length > 0) await write(plan.stdin);
          await requireSink().close();
          // Stdin the command never reads is harmless: a write that fails because it exited is not an error.
        })().catch(() => {});
      }
      return { pid, ended: end };
    },
    kill: async () => {
      await handle?.kill().catch(() => {});
      // Best effort: a command whose tree survives a failed sweep still ends with the sandbox.
      await sweep(sandbox, plan.marker).catch(() => {});
    },
    stdin: {
      write: (data) => sendStdin(() => write(data)),
      close: () => sendStdin(() => requireSink().close()),
    },
  };
}

/**
 * Reads a running command's events from `first` on: its output, then how it
 * ended (`exited` with the agent's code, else `lost`: the stream broke or
 * ended without the exit).
 */
async function readEnd(
  first: MsbExecEvent | undefined,
  events: AsyncIterator<MsbExecEvent | undefined>,
  output: (stream: "stdout" | "stderr", data: Uint8Array) => void,
): Promise<VendorEnd> {
  let exitCode: number | undefined;
  let broken: unknown;
  try {
    // After the start, an `undefined` event is a `core.exec.stdin.error` (stdin written to a command that closed it).
    for (let event = first; ; ) {
      if (event?.kind === "exited") exitCode = event.code;
      else if (event?.kind === "stdout" || event?.kind === "stderr") output(event.kind, event.data);
      const next = await events.next();
      if (next.done) break;
      event = next.value;
    }
  } catch (error) {
    broken = error;
  }
  if (exitCode !== undefined) return { kind: "exited", exitCode };
  return { kind: "lost", error: broken ?? new Error("the command's event stream ended without its exit") };
}

/** Kills a command's descendants: the kit's marker sweep, run as its own command, drained to its end. */
async function sweep(sandbox: MsbSandbox, marker: string): Promise<void> {
  const handle = await sandbox.execStreamWith("/bin/sh", (options) =>
    options.args(["-c", markerSweepScript(EXEC_MARKER_ENV, marker)]).stdinPipe(),
  );
  await (await handle.takeStdin())?.close();
  for await (const _event of handle) {
    // Drained to the end: the sweep has finished.
  }
}

/**
 * The command never ran. microsandbox 0.6.18 hands a streamed command's
 * `core.exec.failed` over without its reason, so the usual ones are named:
 * agentd reports a missing program or working directory this way.
 */
function notStarted(name: string, plan: CommandPlan): SandportError {
  return new SandportError({
    code: "NOT_FOUND",
    provider: PROVIDER,
    retryable: false,
    message:
      `microsandbox could not start ${JSON.stringify(plan.cmd)} in ${plan.cwd} (sandbox ${name}): ` +
      "the program or the working directory does not exist, most likely (the SDK does not pass on agentd's reason)",
    details: { sandboxId: name, cwd: plan.cwd, program: plan.cmd },
  });
}
