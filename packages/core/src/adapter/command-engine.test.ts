import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { SandportError } from "../errors/sandport-error.js";
import type { ExecEvent } from "../port/exec-event.js";
import type { OutputStream } from "../streams/output-collector.js";
import {
  type CommandRunOptions,
  ranOutOfTime,
  runCommandToEnd,
  startCommandRun,
  VENDOR_TIMEOUT_SLACK_MS,
  type VendorCommand,
  type VendorEnd,
  type VendorProcess,
} from "./command-engine.js";
import { spawnCommand, type VendorStdin } from "./spawned-process.js";

/** Stdin of a spawned fake: nothing is written in these tests. */
const noStdin: VendorStdin = { write: async () => {}, close: async () => {} };

/** A vendor process the test drives: it writes output and ends when told, or when killed. */
class FakeVendor implements VendorCommand {
  kills = 0;
  killedBeforeStart = false;
  output: (stream: OutputStream, data: string | Uint8Array) => void = () => {};
  end: (end: VendorEnd) => void = () => {};
  fail: (error: unknown) => void = () => {};
  /** What a kill does: end the process as killed (default), or hang (a vendor that never answers). */
  onKill: "end" | "hang" | "ignore" = "end";
  /** Output the process writes before its start call returns. */
  early: string | undefined;

  async start(output: (stream: OutputStream, data: string | Uint8Array) => void): Promise<VendorProcess> {
    this.output = output;
    const ended = new Promise<VendorEnd>((resolve, reject) => {
      this.end = resolve;
      this.fail = reject;
    });
    if (this.early !== undefined) output("stdout", this.early);
    return { pid: 42, ended };
  }

  kill(process: VendorProcess | undefined): Promise<void> {
    this.kills++;
    if (process === undefined) this.killedBeforeStart = true;
    if (this.onKill === "hang") return new Promise(() => {});
    if (this.onKill === "end") this.end({ kind: "killed" });
    return Promise.resolve();
  }
}

function options(extra: Partial<CommandRunOptions> = {}): CommandRunOptions {
  return { provider: "test", timeoutMs: 60_000, maxOutputBytes: 1024, signal: new AbortController().signal, ...extra };
}

describe("the command engine", () => {
  test("a command that exits by itself keeps its code; started comes first even after early output", async () => {
    const vendor = new FakeVendor();
    vendor.early = "early\n";
    const events: ExecEvent[] = [];
    const run = await startCommandRun(vendor, options({ emit: (event) => events.push(event) }));
    vendor.output("stderr", "late\n");
    vendor.end({ kind: "exited", exitCode: 3 });
    const result = await run.finished;
    assert.deepEqual(
      [result.exitCode, result.timedOut, result.truncated, result.stdout, result.stderr],
      [3, false, false, "early\n", "late\n"],
    );
    assert.ok(result.durationMs >= 0);
    assert.deepEqual(
      events.map((event) => event.type),
      ["started", "stdout", "stderr"],
    );
    assert.equal(vendor.kills, 0);
  });

  test("a command past its run budget is killed: timedOut true, exitCode null", async () => {
    const vendor = new FakeVendor();
    const result = await runCommandToEnd(vendor, options({ timeoutMs: 20 }));
    assert.deepEqual([result.timedOut, result.exitCode, vendor.kills], [true, null, 1]);
  });

  test("a vendor that ends the command for its own timeout reports timedOut, exitCode null", async () => {
    const vendor = new FakeVendor();
    const run = await startCommandRun(vendor, options());
    vendor.end({ kind: "timed-out" });
    const result = await run.finished;
    assert.deepEqual([result.timedOut, result.exitCode], [true, null]);
  });

  test("output past the cap is cut, the kill sent, and the exit code null even if the vendor reports one", async () => {
    const vendor = new FakeVendor();
    vendor.onKill = "ignore";
    const run = await startCommandRun(vendor, options({ maxOutputBytes: 4 }));
    vendor.output("stdout", "abcdef");
    assert.equal(vendor.kills, 1, "the kill is sent as the cap is passed");
    vendor.end({ kind: "exited", exitCode: 0 });
    const result = await run.finished;
    assert.deepEqual([result.truncated, result.stdout, result.exitCode, result.timedOut], [true, "abcd", null, false]);
  });

  test("output past the cap before the start returned is killed once it runs", async () => {
    const vendor = new FakeVendor();
    vendor.early = "0123456789";
    const result = await runCommandToEnd(vendor, options({ maxOutputBytes: 4 }));
    assert.deepEqual([result.truncated, result.exitCode, vendor.kills], [true, null, 1]);
  });

  test("a vendor with raw output: events carry its exact bytes, the cap cuts bytes, text is decoded across chunks", async () => {
    const vendor = Object.assign(new FakeVendor(), { rawOutput: true });
    vendor.onKill = "ignore";
    const events: ExecEvent[] = [];
    const run = await startCommandRun(vendor, options({ maxOutputBytes: 6, emit: (event) => events.push(event) }));
    // "é" (c3 a9) split across two chunks, then a byte that is not UTF-8, then more than the cap allows.
    vendor.output("stdout", new Uint8Array([0x61, 0xc3]));
    vendor.output("stdout", new Uint8Array([0xa9, 0xff]));
    vendor.output("stderr", new Uint8Array([0x62, 0x63, 0x64]));
    vendor.end({ kind: "exited", exitCode: 0 });
    const result = await run.finished;
    const bytes = events.flatMap((event) =>
      event.type === "stdout" || event.type === "stderr" ? [...event.bytes] : [],
    );
    assert.deepEqual(bytes, [0x61, 0xc3, 0xa9, 0xff, 0x62, 0x63], "exact bytes, cut at the cap");
    assert.deepEqual(
      [result.stdout, result.stderr, result.truncated, result.exitCode],
      ["a\u00e9\ufffd", "bc", true, null],
    );
  });

  test("kill(): the kill is sent once, exitCode null, timedOut false", async () => {
    const vendor = new FakeVendor();
    const run = await startCommandRun(vendor, options());
    await Promise.all([run.kill(), run.kill()]);
    const result = await run.finished;
    assert.deepEqual([result.exitCode, result.timedOut, vendor.kills, run.stopReason], [null, false, 1, "killed"]);
  });

  test("an abort kills the command and rejects with the signal's reason", async () => {
    const vendor = new FakeVendor();
    vendor.onKill = "ignore";
    const controller = new AbortController();
    const run = await startCommandRun(vendor, options({ signal: controller.signal }));
    const reason = new SandportError({ code: "ABORTED", provider: "test", retryable: false, message: "gave up" });
    controller.abort(reason);
    await assert.rejects(run.finished, (error) => error === reason);
    assert.deepEqual([vendor.kills, run.stopReason], [1, "aborted"]);
  });

  test("a start cut off by its signal sweeps for the command anyway", async () => {
    const controller = new AbortController();
    const vendor = new FakeVendor();
    vendor.start = () => {
      controller.abort(new Error("gave up"));
      return Promise.reject(new Error("cut"));
    };
    await assert.rejects(startCommandRun(vendor, options({ signal: controller.signal })), /cut/);
    assert.equal(vendor.killedBeforeStart, true);
  });

  test("lost output: the command is stopped and the run rejects, flagged outcomeUnknown", async () => {
    const vendor = new FakeVendor();
    vendor.onKill = "ignore";
    const run = await startCommandRun(vendor, options());
    vendor.fail(new Error("stream reset"));
    const error = await run.finished.catch((caught: unknown) => caught);
    assert.ok(SandportError.hasCode(error, "PROVIDER_UNAVAILABLE"));
    assert.equal(error.details.outcomeUnknown, true);
    assert.deepEqual([vendor.kills, run.stopReason], [1, "lost"]);
  });

  test("a kill the vendor never confirms rejects DEADLINE_EXCEEDED at the kill deadline, and so does the run", async () => {
    const vendor = new FakeVendor();
    vendor.onKill = "hang";
    const run = await startCommandRun(vendor, options({ killDeadlineMs: 30 }));
    const killing = run.kill().catch((caught: unknown) => caught);
    const killError = await killing;
    assert.ok(SandportError.hasCode(killError, "DEADLINE_EXCEEDED"));
    const runError = await run.finished.catch((caught: unknown) => caught);
    assert.ok(SandportError.hasCode(runError, "DEADLINE_EXCEEDED"));
    assert.equal(runError.details.outcomeUnknown, true);
  });
});

describe("the resource limit of a command's result", () => {
  test("a vendor end that names a limit reaches the result and the exited event of a spawned command", async () => {
    const vendor = new FakeVendor();
    const run = await startCommandRun(vendor, options());
    vendor.end({ kind: "exited", exitCode: 137, limit: "memory" });
    const result = await run.finished;
    assert.deepEqual([result.exitCode, result.limit, result.timedOut], [137, "memory", false]);

    const spawned = new FakeVendor();
    const process = await spawnCommand(spawned, { ...options(), stdin: () => noStdin });
    spawned.end({ kind: "killed", limit: "processes" });
    const events: ExecEvent[] = [];
    for await (const event of process.events) events.push(event);
    const exited = events.at(-1);
    assert.ok(exited?.type === "exited");
    assert.deepEqual([exited.result.exitCode, exited.result.limit], [null, "processes"]);
  });

  test("exit 137 without the vendor naming a limit has none: the code alone is never read as one", async () => {
    const vendor = new FakeVendor();
    const run = await startCommandRun(vendor, options());
    vendor.end({ kind: "exited", exitCode: 137 });
    const result = await run.finished;
    assert.equal(result.exitCode, 137);
    assert.equal("limit" in result, false);
  });

  test("a command that exited 0 reports no limit, even if the vendor saw one hit while it ran", async () => {
    const vendor = new FakeVendor();
    const run = await startCommandRun(vendor, options());
    vendor.end({ kind: "exited", exitCode: 0, limit: "processes" });
    assert.equal("limit" in (await run.finished), false);
  });

  test("a limit and the run budget are reported side by side: timedOut says who stopped it", async () => {
    const vendor = new FakeVendor();
    vendor.onKill = "ignore";
    const run = await startCommandRun(vendor, options({ timeoutMs: 10 }));
    await new Promise<void>((resolve) => {
      const wait = () => (run.stopReason === "timeout" ? resolve() : setImmediate(wait));
      wait();
    });
    vendor.end({ kind: "killed", limit: "processes" });
    const result = await run.finished;
    assert.deepEqual([result.timedOut, result.exitCode, result.limit], [true, null, "processes"]);
  });
});

describe("ranOutOfTime", () => {
  test("a run counts as the vendor's timeout from the slack before its timeout on, never sooner", () => {
    assert.equal(ranOutOfTime(1_000, 1_000), true);
    assert.equal(ranOutOfTime(1_000 - VENDOR_TIMEOUT_SLACK_MS, 1_000), true);
    assert.equal(ranOutOfTime(1_000 - VENDOR_TIMEOUT_SLACK_MS - 1, 1_000), false);
    assert.equal(ranOutOfTime(0, 1_000), false);
  });
});
