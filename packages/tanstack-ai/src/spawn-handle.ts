import { exitStatus, type SandboxHandle, type SandboxProcess } from "@sandport/core";
import type { SpawnHandle } from "@tanstack/ai-sandbox";
import { type HandleContext, unsupportedCapability } from "./context.js";
import { OutputQueue } from "./output-queue.js";

/** The signals the port's `kill` honours: it stops the command's whole tree, which is what these ask. */
const KILL_SIGNALS: ReadonlySet<NodeJS.Signals | number> = new Set(["SIGKILL", "SIGTERM", 9, 15]);

/**
 * TanStack AI's `SpawnHandle` over a spawned port process. `stdout` and
 * `stderr` are read independently (a pump splits the port's one event
 * stream); `pid` is the sandbox's process id where the runtime reports one,
 * else -1. `wait` resolves with the exit status as `exec` maps it (124 past
 * the time limit, 137 when killed). `kill` stops the command and everything it
 * started; asked for a signal other than `SIGTERM` or `SIGKILL` (one a process
 * may handle and live on), it rejects with TanStack AI's
 * `UnsupportedCapabilityError` and kills nothing.
 */
export async function spawnHandle<H extends SandboxHandle>(
  context: HandleContext<H>,
  process: SandboxProcess,
): Promise<SpawnHandle> {
  const events = process.events[Symbol.asyncIterator]();
  // `started` is always first, and spawn resolved once the command runs: it carries the pid.
  const first = await events.next();
  const pid = !first.done && first.value.type === "started" ? (first.value.pid ?? -1) : -1;
  const stdout = new OutputQueue();
  const stderr = new OutputQueue();
  const pump = async () => {
    for (let next = first; !next.done; next = await events.next()) {
      const event = next.value;
      if (event.type === "stdout") stdout.push(event.data);
      else if (event.type === "stderr") stderr.push(event.data);
    }
  };
  pump().then(
    () => {
      stdout.end();
      stderr.end();
    },
    (error: unknown) => {
      stdout.fail(error);
      stderr.fail(error);
    },
  );
  return {
    pid,
    stdout,
    stderr,
    stdin: {
      write: (data) => process.write(data),
      end: () => process.closeStdin(),
    },
    wait: async () => exitStatus(await process.result),
    kill: async (signal) => {
      if (signal !== undefined && !KILL_SIGNALS.has(signal)) {
        throw unsupportedCapability(context, `kill with ${signal}`, "way to send a signal other than a kill");
      }
      await process.kill();
    },
  };
}
