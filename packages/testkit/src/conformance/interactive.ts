import assert from "node:assert/strict";
import type { ExecEvent, SandboxHandle, SandboxProcess } from "@sandport/core";
import { allByteValues, expectCode, since } from "./assertions.js";
import type { CheckGroup } from "./suite.js";

/** Reads a process's stdout text until `wanted` appears (or the events end), within `timeoutMs`. */
async function readUntil(iterator: AsyncIterator<ExecEvent>, wanted: string, timeoutMs: number): Promise<string> {
  let text = "";
  const deadline = Date.now() + timeoutMs;
  while (!text.includes(wanted)) {
    const left = deadline - Date.now();
    assert.ok(
      left > 0,
      `no ${JSON.stringify(wanted)} in the output within ${timeoutMs} ms (got ${JSON.stringify(text)})`,
    );
    const next = await Promise.race([
      iterator.next(),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`waited ${timeoutMs} ms for output`)), left)),
    ]);
    if (next.done) break;
    if (next.value.type === "stdout") text += next.value.data;
  }
  return text;
}

/**
 * Registers the interactive-process checks (`spawn`): a conversation over
 * stdin and stdout, kill and abort, and a write to an exited process.
 */
export function declareInteractiveChecks<H extends SandboxHandle>(group: CheckGroup<H>): void {
  const { runtime, suite } = group;
  const { promptMs } = suite.timeouts;
  const spawn = (handle: H, shell: string, signal?: AbortSignal): Promise<SandboxProcess> =>
    runtime.spawn!(handle, { shell }, signal ? { signal } : undefined);

  group.check("interactive.conversation", async () => {
    const handle = group.sandbox();
    const process = await spawn(handle, 'while read -r line; do echo "got:$line"; done; echo "bye"; exit 3');
    const events = process.events[Symbol.asyncIterator]();
    const first = await events.next();
    assert.equal(first.value?.type, "started", "the first event is started");
    // Each answer is read before the next line is written: the command really runs while stdin is open.
    for (const line of ["one", "two é 🚀"]) {
      await process.write(`${line}\n`);
      assert.match(await readUntil(events, `got:${line}\n`, promptMs), new RegExp(`got:${line}`));
    }
    await process.closeStdin();
    await process.closeStdin();
    await readUntil(events, "bye\n", promptMs);
    const result = await process.result;
    assert.equal(result.exitCode, 3);
    assert.equal(result.stdout, "got:one\ngot:two é 🚀\nbye\n", "the result carries the whole output");
    await expectCode(() => process.write("late\n"), "INVALID_REQUEST", "a write after closeStdin");
    let last: ExecEvent | undefined;
    for (let next = await events.next(); !next.done; next = await events.next()) last = next.value;
    assert.equal(last?.type, "exited", "the events end with exited");
  });

  group.check("interactive.kill", async () => {
    const handle = group.sandbox();
    const process = await spawn(handle, "cat");
    await process.write("still here\n");
    const started = performance.now();
    await process.kill();
    await process.kill();
    const result = await process.result;
    assert.ok(since(started) < promptMs, `the kill took ${since(started)} ms`);
    assert.equal(result.exitCode, null, "a killed process reports no exit status");
    await expectCode(() => process.write("after the end\n"), "NOT_FOUND", "a write to an exited process");
  });

  group.check("interactive.abort", async () => {
    const handle = group.sandbox();
    const controller = new AbortController();
    const process = await spawn(handle, "cat", controller.signal);
    const started = performance.now();
    controller.abort(new Error("the caller gave up"));
    const result = await process.result;
    assert.ok(since(started) < promptMs, `the abort took ${since(started)} ms`);
    assert.equal(result.exitCode, null, "aborting op.signal after the start kills the process");
  });

  group.check("interactive.kill-result", async () => {
    const handle = group.sandbox();
    const killed = await spawn(handle, "echo before; sleep 30");
    await killed.kill();
    const controller = new AbortController();
    const aborted = await spawn(handle, "echo before; sleep 30", controller.signal);
    controller.abort(new Error("the caller gave up"));
    for (const [how, process] of [
      ["kill()", killed],
      ["an abort", aborted],
    ] as const) {
      const result = await process.result;
      const shown = `exitCode ${result.exitCode}, timedOut ${result.timedOut}, truncated ${result.truncated}`;
      assert.equal(result.exitCode, null, `a command ended by ${how} has no exit code (${shown})`);
      assert.equal(result.timedOut, false, `a command ended by ${how} did not time out (${shown})`);
      assert.equal(result.truncated, false, `a command ended by ${how} was not truncated (${shown})`);
    }
  });

  group.check(
    "interactive.binary-output",
    async () => {
      const handle = group.sandbox();
      const process = await spawn(handle, "cat");
      const received: number[] = [];
      const reading = (async () => {
        for await (const event of process.events) if (event.type === "stdout") received.push(...event.bytes);
      })();
      await process.write(allByteValues());
      await process.closeStdin();
      await reading;
      assert.deepEqual(Uint8Array.from(received), allByteValues(), "all 256 byte values through stdin and stdout");
    },
    {
      unavailable:
        suite.capabilities.binaryOutput === true ? undefined : `binaryOutput is ${suite.capabilities.binaryOutput}`,
    },
  );
}
