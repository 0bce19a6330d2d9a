import assert from "node:assert/strict";
import { type ExecEvent, type ExecRequest, type ExecResult, isAbsence, type SandboxHandle } from "@sandport/core";
import {
  allByteValues,
  assertNoHostMarker,
  collectEvents,
  delay,
  expectCode,
  fileExists,
  since,
  type TimedEvent,
  withHostEnvMarker,
} from "./assertions.js";
import { LateProbe } from "./late-probe.js";
import { type CheckGroup, LAUNCH_ENV_NAME, LAUNCH_ENV_VALUE } from "./suite.js";
import { invalidExecCases } from "./validation.js";

/**
 * Asserts the event grammar (`started`, output chunks, `exited`, each of the
 * first and last exactly once) and that chunks add up to the final result.
 * Returns the result.
 */
export function assertEventGrammar(events: readonly TimedEvent[]): ExecResult {
  const types = events.map(({ event }) => event.type);
  assert.ok(events.length >= 2, `a stream has at least started and exited, got ${types.join(", ")}`);
  assert.equal(types[0], "started", "the first event is started");
  assert.equal(types.at(-1), "exited", "the last event is exited");
  assert.equal(types.filter((type) => type === "started").length, 1, "started comes once");
  assert.equal(types.filter((type) => type === "exited").length, 1, "exited comes once");
  const last = events.at(-1)!.event as Extract<ExecEvent, { type: "exited" }>;
  const joined = (stream: "stdout" | "stderr") =>
    events.flatMap(({ event }) => (event.type === stream ? [event.data] : [])).join("");
  assert.equal(joined("stdout"), last.result.stdout, "stdout chunks add up to result.stdout");
  assert.equal(joined("stderr"), last.result.stderr, "stderr chunks add up to result.stderr");
  return last.result;
}

/**
 * Registers the streaming checks (`execStream`): event grammar, order, live
 * delivery, exit codes, timeout, abort, early break, env isolation and refused requests.
 */
export function declareStreamingChecks<H extends SandboxHandle>(group: CheckGroup<H>): void {
  const { runtime, suite } = group;
  const { commandTimeoutMs, promptMs } = suite.timeouts;
  const mode = suite.capabilities.outputStreams;
  const stream = (request: ExecRequest, signal?: AbortSignal) => () =>
    runtime.execStream!(group.sandbox(), request, signal ? { signal } : undefined);

  group.check("streaming.events", async () => {
    const events = await collectEvents(
      stream({ shell: "printf 'one\\n'; printf 'two\\n' >&2; printf 'three\\n'; exit 4" }),
    );
    const result = assertEventGrammar(events);
    assert.equal(result.exitCode, 4);
    if (mode === "combined") {
      assert.equal(result.stdout, "one\ntwo\nthree\n");
      assert.equal(result.stderr, "");
    } else {
      assert.equal(result.stdout, "one\nthree\n");
      assert.equal(result.stderr, "two\n");
    }
    const started = events[0]!.event as Extract<ExecEvent, { type: "started" }>;
    const declared = suite.capabilities.isolation;
    for (const reported of [started.isolation, result.isolation]) {
      if (reported !== undefined && !isAbsence(declared)) {
        assert.equal(reported, declared, `the stream reports isolation ${reported}, the runtime declares ${declared}`);
      }
    }
  });

  group.check(
    "exec.binary-output",
    async () => {
      // printf with octal escapes for every byte value, in chunks small enough for any shell's printf.
      const escapes = Array.from(allByteValues(), (byte: number) => `\\${byte.toString(8).padStart(3, "0")}`);
      const script = Array.from(
        { length: 8 },
        (_, part) => `printf '${escapes.slice(part * 32, part * 32 + 32).join("")}'`,
      );
      const events = await collectEvents(stream({ shell: script.join("; ") }));
      const received = events.flatMap(({ event }) => (event.type === "stdout" ? [...event.bytes] : []));
      assert.deepEqual(Uint8Array.from(received), allByteValues(), "every byte value arrives exactly in bytes");
    },
    {
      unavailable:
        suite.capabilities.binaryOutput === true ? undefined : `binaryOutput is ${suite.capabilities.binaryOutput}`,
    },
  );

  group.check("streaming.order", async (t) => {
    const events = await collectEvents(
      stream({ shell: "for i in 1 2 3 4 5; do echo out-$i; sleep 0.05; echo err-$i >&2; sleep 0.05; done" }),
    );
    assertEventGrammar(events);
    // Chunks may split lines, so rebuild each stream's lines in arrival order, noting when each line completed.
    const lines: string[] = [];
    const pending = { stdout: "", stderr: "" };
    for (const { event } of events) {
      if (event.type !== "stdout" && event.type !== "stderr") continue;
      const parts = (pending[event.type] + event.data).split("\n");
      pending[event.type] = parts.pop() ?? "";
      lines.push(...parts);
    }
    const interleaved = [1, 2, 3, 4, 5].flatMap((i) => [`out-${i}`, `err-${i}`]);
    if (mode === "combined") {
      assert.deepEqual(lines, interleaved, "combined output arrives in the order it was written");
      return;
    }
    // The port promises order within each stream; across two pipes, arrival order is the reader's luck.
    for (const prefix of ["out-", "err-"]) {
      const own = (list: string[]) => list.filter((line) => line.startsWith(prefix));
      assert.deepEqual(own(lines), own(interleaved), `${prefix}* lines arrive in order`);
    }
    const crossOrder = JSON.stringify(lines) === JSON.stringify(interleaved);
    t.diagnostic(`across stdout and stderr the lines arrived ${crossOrder ? "in" : "out of"} written order`);
  });

  group.check(
    "streaming.live",
    async () => {
      const events = await collectEvents(stream({ shell: "echo first; sleep 1; echo second" }));
      assertEventGrammar(events);
      const first = events.find(({ event }) => event.type === "stdout" && event.data.includes("first"));
      const exited = events.at(-1)!;
      assert.ok(first !== undefined, "the first line arrived as a stdout event");
      assert.ok(exited.atMs - first.atMs >= 500, `first output came ${exited.atMs - first.atMs} ms before exit`);
    },
    { unavailable: mode === "buffered" ? "outputStreams is buffered: output comes only after exit" : undefined },
  );

  group.check("streaming.exit-code", async () => {
    for (const [request, code] of [
      [{ shell: "exit 9" }, 9],
      [{ argv: ["false"] }, 1],
    ] as const) {
      const result = assertEventGrammar(await collectEvents(stream(request)));
      assert.equal(result.exitCode, code, `exit code of ${JSON.stringify(request)}`);
      assert.equal(result.timedOut, false);
    }
  });

  group.check("streaming.timeout", async () => {
    const begin = performance.now();
    const events = await collectEvents(stream({ shell: "echo before; sleep 30", timeoutMs: commandTimeoutMs }));
    const elapsed = since(begin);
    const result = assertEventGrammar(events);
    assert.equal(result.timedOut, true, "timedOut");
    assert.equal(result.exitCode, null, "exitCode");
    assert.equal(result.stdout, "before\n", "output before the kill is kept");
    assert.ok(elapsed <= commandTimeoutMs + promptMs, `the stream ended after ${elapsed} ms`);
  });

  group.check("streaming.abort", async () => {
    const handle = group.sandbox();
    const controller = new AbortController();
    const reason = new Error("conformance stream abort");
    let abortedAt = 0;
    const probe = new LateProbe("streaming-abort", promptMs);
    const error = await expectCode(
      async () => {
        const request = { shell: `echo started; ${probe.shell}; sleep 30` };
        for await (const event of runtime.execStream!(handle, request, { signal: controller.signal })) {
          if (event.type === "stdout" && abortedAt === 0) {
            abortedAt = performance.now();
            controller.abort(reason);
          }
        }
      },
      "ABORTED",
      "iterating an aborted stream",
    );
    assert.ok(abortedAt > 0, "the command's first output arrived");
    assert.ok(since(abortedAt) <= promptMs, `the stream rejected ${since(abortedAt)} ms after the abort`);
    assert.equal(error.cause, reason, "the abort reason is the error's cause");
    assert.equal(await probe.survived(runtime, handle), false, "the command kept running");
  });

  group.check("streaming.early-break", async () => {
    const handle = group.sandbox();
    const probe = new LateProbe("streaming-break", promptMs);
    const request = { shell: `echo started; ${probe.shell}` };
    let brokeAt = 0;
    for await (const event of runtime.execStream!(handle, request)) {
      if (event.type === "stdout") {
        brokeAt = performance.now();
        break;
      }
    }
    assert.ok(brokeAt > 0, "the command's first output arrived");
    assert.equal(await probe.survived(runtime, handle), false, "the command outlived the loop");
  });

  group.check("streaming.env-isolation", async () => {
    await withHostEnvMarker(async (value) => {
      const events = await collectEvents(stream({ argv: ["env"], env: { STREAM_VAR: "stream-value" } }));
      const { stdout } = assertEventGrammar(events);
      assert.match(stdout, /^STREAM_VAR=stream-value$/m, "the request env");
      assert.ok(stdout.includes(`${LAUNCH_ENV_NAME}=${LAUNCH_ENV_VALUE}`), "the launch env");
      assertNoHostMarker(stdout, value, "env of a streamed command");
    });
  });

  group.check("streaming.invalid-requests", async () => {
    const handle = group.sandbox();
    const probe = "streaming-invalid-ran.txt";
    for (const { what, request, op, code } of invalidExecCases(probe)) {
      await expectCode(
        () => collectEvents(() => runtime.execStream!(handle, request, op)),
        code,
        `execStream with ${what}`,
      );
    }
    await delay(200);
    assert.equal(await fileExists(runtime, handle, probe), false, "a refused streamed request ran its command");
  });
}
