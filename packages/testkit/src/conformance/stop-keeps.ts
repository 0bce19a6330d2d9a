import assert from "node:assert/strict";
import { isAbsence, type SandboxHandle, type SandboxRuntime, SandportError } from "@sandport/core";
import { fileExists, pollUntil, readText } from "./assertions.js";
import { type CheckGroup, GROUP_LABEL } from "./suite.js";

/** Where the background loop writes its count, in the workspace. */
const COUNT_FILE = "stop-keeps/count.txt";
/** A loop counting in its shell's memory: resumed, it goes on from its last value; started afresh, from 1. */
const COUNTER = `mkdir -p stop-keeps; n=0; while :; do n=$((n+1)); echo $n > ${COUNT_FILE}; sleep 0.02; done`;
/**
 * How far the loop counts before `stop`: the first value it writes after
 * `start` must be above this, where a loop started afresh would write 1, 2, ...
 */
const COUNT_BEFORE_STOP = 10;

/**
 * Registers `lifecycle.stop-keeps`, proving the declared `stopKeeps` mode on a
 * sandbox stopped and started again: `filesystem` keeps a file written before
 * `stop`; `filesystem+memory` also keeps a background process (a shell loop
 * started with `spawn`, else `startCommand`, before `stop`) alive, continuing
 * its count from its own memory after `start`; `nothing` keeps not even the
 * file. Skipped, saying why, where the mode is an absence or there is no
 * `stop`/`start`.
 */
export function declareStopKeepsChecks<H extends SandboxHandle>(group: CheckGroup<H>): void {
  const { runtime, suite } = group;
  const declared = suite.capabilities.stopKeeps;
  const hasLifecycle = typeof runtime.stop === "function" && typeof runtime.start === "function";
  const background = typeof runtime.spawn === "function" || typeof runtime.startCommand === "function";
  const unavailable = !hasLifecycle
    ? `lifecycle is ${suite.capabilities.lifecycle}: the runtime has no stop/start`
    : isAbsence(declared)
      ? `stopKeeps is ${declared}: nothing declared to prove`
      : declared === "filesystem+memory" && !background
        ? "stopKeeps is filesystem+memory, but the runtime has neither spawn nor startCommand to leave a process running"
        : undefined;

  group.check(
    "lifecycle.stop-keeps",
    async () => {
      const handle = await suite.launch({ labels: { [GROUP_LABEL]: "lifecycle-stop-keeps" } });
      let stopLoop: (() => Promise<unknown>) | undefined;
      try {
        await runtime.writeFiles(handle, [{ path: "stop-keeps/kept.txt", content: "kept" }]);
        if (declared === "filesystem+memory") {
          stopLoop = await startLoop(runtime, handle);
          await pollUntil(
            () => readCount(runtime, handle),
            (count) => count >= COUNT_BEFORE_STOP,
            { timeoutMs: suite.timeouts.hookMs, intervalMs: 20, what: "the background loop's count before stop" },
          );
        }
        await runtime.stop!(handle);
        await runtime.start!(handle);
        if (declared === "nothing") {
          assert.equal(
            await fileExists(runtime, handle, "stop-keeps/kept.txt"),
            false,
            "stopKeeps nothing kept a file",
          );
          return;
        }
        assert.equal(await readText(runtime, handle, "stop-keeps/kept.txt"), "kept", "a file written before stop");
        if (declared !== "filesystem+memory") return;
        // The first whole value after start (a read may fall between the loop's truncate and its write: 0).
        const resumedAt = await pollUntil(
          () => readCount(runtime, handle),
          (count) => count !== 0,
          { timeoutMs: suite.timeouts.hookMs, intervalMs: 10, what: "the background loop's count after start" },
        );
        // The first value that differs: a loop that goes on writes resumedAt + 1 (or more); a new one writes 1.
        const next = await pollUntil(
          () => readCount(runtime, handle),
          (count) => count !== 0 && count !== resumedAt,
          { timeoutMs: suite.timeouts.hookMs, intervalMs: 10, what: "the background loop counting after start" },
        );
        assert.ok(
          resumedAt >= COUNT_BEFORE_STOP && next > resumedAt,
          `the loop started before stop goes on counting from its memory: read ${resumedAt}, then ${next}`,
        );
      } finally {
        await stopLoop?.().catch(() => {});
        await suite.destroy(handle);
      }
    },
    { unavailable },
  );
}

/** Starts the counting loop, with `spawn` where the runtime has it, else `startCommand`; returns what kills it. */
async function startLoop<H extends SandboxHandle>(
  runtime: SandboxRuntime<H>,
  handle: H,
): Promise<() => Promise<unknown>> {
  if (runtime.spawn) {
    const loop = await runtime.spawn(handle, { shell: COUNTER });
    return () => loop.kill();
  }
  await runtime.startCommand!(handle, { shell: COUNTER, sessionId: "stop-keeps-loop" });
  // The sandbox's destroy stops it.
  return async () => {};
}

/** The loop's count, or 0 before its first write (or while a write is half done). */
async function readCount<H extends SandboxHandle>(runtime: SandboxRuntime<H>, handle: H): Promise<number> {
  try {
    return (
      Number(
        Buffer.from(await runtime.readFile(handle, COUNT_FILE))
          .toString("utf8")
          .trim(),
      ) || 0
    );
  } catch (error) {
    if (SandportError.hasCode(error, "NOT_FOUND")) return 0;
    throw error;
  }
}
