import assert from "node:assert/strict";
import { test } from "node:test";
import type { ExecResult } from "../../port/exec-result.js";
import { byteLength, UsageMeter } from "./usage-meter.js";

/** A clock the test moves by hand. */
function clock(start: number) {
  let now = start;
  return {
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

function exited(stdout: string, stderr = ""): ExecResult {
  return { exitCode: 0, stdout, stderr, truncated: false, timedOut: false, durationMs: 7 };
}

test("counts a sandbox's life, its commands and the bytes in and out, until it is destroyed", () => {
  const time = clock(Date.parse("2026-03-01T10:00:00.000Z"));
  const meter = new UsageMeter({
    sandboxId: "sbx-1",
    runtime: { index: 1, provider: "local" },
    reused: false,
    createdAt: "2026-03-01T09:59:59.000Z",
    resources: { memoryMiB: 512, cpus: 1, maxProcesses: 10 },
    now: time.now,
  });
  meter.filesWritten([
    { path: "a", content: "héllo" },
    { path: "b", content: new Uint8Array(10) },
  ]);
  time.advance(1_500);
  meter.exec("in€", exited("out\n", "err"), 250);
  meter.exec(undefined, exited(""), 50);
  meter.fileRead(42);
  time.advance(2_500);
  const open = meter.report();
  assert.equal(open.end, "open");
  assert.equal(open.destroyedAt, undefined);
  assert.equal(open.sandboxSeconds, 4, "a sandbox still in use counts up to the report");
  meter.end("destroyed");
  time.advance(60_000);
  const usage = meter.report();
  assert.deepEqual(
    { ...usage, measuredAt: undefined },
    {
      sandboxId: "sbx-1",
      runtime: { index: 1, provider: "local" },
      reused: false,
      createdAt: "2026-03-01T09:59:59.000Z",
      launchedAt: "2026-03-01T10:00:00.000Z",
      destroyedAt: "2026-03-01T10:00:04.000Z",
      end: "destroyed",
      measuredAt: undefined,
      sandboxSeconds: 4,
      execs: { count: 2, durationMs: 300 },
      bytesIn: { files: 16, stdin: 5 },
      bytesOut: { files: 42, output: 7 },
      resources: { memoryMiB: 512, cpus: 1 },
    },
  );
  assert.equal(usage.measuredAt, "2026-03-01T10:01:04.000Z");
  assert.equal(usage.estimate, undefined, "no price table, no estimate");
});

test("a kept sandbox's life is counted to the report; its use ends once, with an estimate from the table", () => {
  const time = clock(0);
  const meter = new UsageMeter({ sandboxId: "s", runtime: { index: 0, provider: "p" }, reused: true, now: time.now });
  time.advance(10_000);
  meter.end("kept");
  meter.end("destroyed");
  time.advance(5_000);
  const usage = meter.report({ currency: "USD", providers: { p: { sandboxSecond: 2 } } });
  assert.equal(usage.end, "kept");
  assert.equal(usage.destroyedAt, undefined);
  assert.equal(usage.sandboxSeconds, 15);
  assert.equal(usage.estimate?.total, 30);
  assert.equal(usage.estimate?.currency, "USD");
});

test("byteLength counts UTF-8 bytes of text and the length of bytes", () => {
  assert.equal(byteLength("aé€😀"), 1 + 2 + 3 + 4);
  assert.equal(byteLength(new Uint8Array(3)), 3);
});
