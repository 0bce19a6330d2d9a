import assert from "node:assert/strict";
import type { ExecResult, SandboxHandle } from "@sandport/core";
import {
  byteLength,
  CAP_STOP_BOUND_MS,
  delay,
  ENDLESS_BUDGET_MS,
  expectCode,
  fileExists,
  pollUntil,
  since,
} from "./assertions.js";
import { LateProbe } from "./late-probe.js";
import type { CheckGroup } from "./suite.js";

/**
 * Registers the checks of what stops a command: its timeout, the caller's
 * abort signal (before and during the call) and the output cap.
 *
 * Each kill check leaves a {@link LateProbe} behind that would write a "late"
 * file once the test opens its gate after the kill; the file must never
 * appear, which proves the command (and, for timeouts, its children) died.
 */
export function declareLimitChecks<H extends SandboxHandle>(group: CheckGroup<H>): void {
  const { runtime, suite } = group;
  const { commandTimeoutMs, promptMs } = suite.timeouts;

  group.check("exec.timeout", async () => {
    const handle = group.sandbox();
    const child = new LateProbe("limits-timeout-child", promptMs);
    const setsid = new LateProbe("limits-timeout-setsid", promptMs);
    const start = performance.now();
    const result = await runtime.exec(handle, {
      shell: [
        "echo started > limits-timeout-started.txt",
        `(${child.shell}) &`,
        `setsid sh -c '${setsid.shell}' &`,
        "sleep 30",
      ].join("\n"),
      timeoutMs: commandTimeoutMs,
    });
    const elapsed = since(start);
    assert.equal(result.timedOut, true, "timedOut");
    assert.equal(result.exitCode, null, "exitCode of a killed command");
    assert.equal(result.truncated, false, "truncated");
    assert.ok(
      elapsed >= commandTimeoutMs - 20,
      `returned after ${elapsed} ms, before its ${commandTimeoutMs} ms timeout`,
    );
    assert.ok(elapsed <= commandTimeoutMs + promptMs, `returned after ${elapsed} ms (timeout ${commandTimeoutMs} ms)`);
    assert.equal(await fileExists(runtime, handle, "limits-timeout-started.txt"), true, "the command never ran");
    // Both wait out the same settle at once.
    const [childSurvived, setsidSurvived] = await Promise.all([
      child.survived(runtime, handle),
      setsid.survived(runtime, handle),
    ]);
    assert.equal(childSurvived, false, "a background child of the timed-out command survived");
    assert.equal(setsidSurvived, false, "a setsid grandchild of the timed-out command survived");
  });

  group.check("exec.op-deadline", async () => {
    const handle = group.sandbox();
    const probe = new LateProbe("limits-deadline", promptMs);
    const start = performance.now();
    await expectCode(
      () => runtime.exec(handle, { shell: `${probe.shell}; sleep 30` }, { timeoutMs: commandTimeoutMs }),
      "DEADLINE_EXCEEDED",
      "exec past its call deadline",
    );
    assert.ok(since(start) <= commandTimeoutMs + promptMs, `rejected after ${since(start)} ms`);
    assert.equal(await probe.survived(runtime, handle), false, "the command outlived its call's deadline");
  });

  group.check("exec.abort", async () => {
    const handle = group.sandbox();
    const controller = new AbortController();
    const reason = new Error("conformance abort");
    const probe = new LateProbe("limits-abort", promptMs);
    const call = runtime.exec(
      handle,
      { shell: `echo started > limits-abort-started.txt; ${probe.shell}; sleep 30` },
      { signal: controller.signal },
    );
    call.catch(() => {}); // observed below; keeps an early rejection from being reported as unhandled
    await pollUntil(
      () => fileExists(runtime, handle, "limits-abort-started.txt"),
      (started) => started,
      { timeoutMs: promptMs * 2, intervalMs: suite.timeouts.pollIntervalMs, what: "waiting for the command to start" },
    );
    const abortedAt = performance.now();
    controller.abort(reason);
    const error = await expectCode(() => call, "ABORTED", "exec after abort");
    assert.ok(since(abortedAt) <= promptMs, `rejected ${since(abortedAt)} ms after the abort`);
    assert.equal(error.cause, reason, "the abort reason is the error's cause");
    assert.equal(await probe.survived(runtime, handle), false, "the aborted command kept running");
  });

  group.check("exec.abort-before-start", async () => {
    const handle = group.sandbox();
    const controller = new AbortController();
    const reason = new Error("aborted before the call");
    controller.abort(reason);
    const start = performance.now();
    const error = await expectCode(
      () => runtime.exec(handle, { shell: "echo ran > limits-pre-abort.txt" }, { signal: controller.signal }),
      "ABORTED",
      "exec with an aborted signal",
    );
    assert.ok(since(start) <= promptMs, `rejected after ${since(start)} ms`);
    assert.equal(error.cause, reason, "the abort reason is the error's cause");
    await delay(300);
    assert.equal(await fileExists(runtime, handle, "limits-pre-abort.txt"), false, "the command ran anyway");
  });

  group.check("exec.output-cap", async () => {
    const handle = group.sandbox();
    const cap = 4096;
    const produced = "aaaaaaa\n".repeat(100_000 / 8);
    const over = await runtime.exec(handle, { shell: "yes aaaaaaa | head -c 100000", maxOutputBytes: cap });
    assert.equal(over.truncated, true, "100000 bytes under a 4096-byte cap is truncated");
    assertKeptPrefix(over, produced.slice(0, cap), "", cap, "stdout only");

    const both = await runtime.exec(handle, {
      shell: "head -c 3000 /dev/zero | tr '\\000' o; head -c 3000 /dev/zero | tr '\\000' e >&2",
      maxOutputBytes: cap,
    });
    assert.equal(both.truncated, true, "3000 + 3000 bytes under a 4096-byte cap is truncated (the cap is combined)");
    const kept = byteLength(both.stdout) + byteLength(both.stderr);
    assert.equal(kept, cap, `kept ${kept} bytes of stdout + stderr; the cap is ${cap}`);
    assert.match(both.stdout + both.stderr, /^[oe]*$/, "the kept output is the command's own");
    if (suite.capabilities.outputStreams === "separate") {
      assert.match(both.stdout, /^o*$/, "stdout holds only stdout");
      assert.match(both.stderr, /^e*$/, "stderr holds only stderr");
    }

    const under = await runtime.exec(handle, { shell: "printf '%0100d' 0", maxOutputBytes: cap });
    assert.equal(under.truncated, false, "100 bytes under a 4096-byte cap is not truncated");
    assert.equal(under.stdout, "0".repeat(100));
    const exact = await runtime.exec(handle, { shell: `printf '%0${cap}d' 0`, maxOutputBytes: cap });
    assert.equal(exact.truncated, false, "exactly maxOutputBytes bytes is not truncated");
    assert.equal(exact.stdout.length, cap);
  });

  group.check("exec.output-cap-stops", async () => {
    const handle = group.sandbox();
    const start = performance.now();
    const result = await runtime.exec(handle, { argv: ["yes"], maxOutputBytes: 4096, timeoutMs: ENDLESS_BUDGET_MS });
    const elapsed = since(start);
    assert.equal(result.truncated, true, "truncated");
    assert.equal(result.timedOut, false, "the endless command ran into its timeout instead of the cap");
    assert.ok(elapsed <= CAP_STOP_BOUND_MS, `stopped ${elapsed} ms after start`);
    assertKeptPrefix(result, "y\n".repeat(2048), "", 4096, "yes");
  });
}

/**
 * The precise output-cap contract for a single-stream producer: exactly the
 * first `cap` bytes are kept, unchanged.
 */
function assertKeptPrefix(result: ExecResult, stdout: string, stderr: string, cap: number, what: string): void {
  const kept = byteLength(result.stdout) + byteLength(result.stderr);
  assert.equal(kept, cap, `${what}: kept ${kept} bytes; the cap is ${cap}`);
  assert.ok(result.stdout === stdout, `${what}: the kept stdout is not the first ${cap} bytes of the output`);
  assert.equal(result.stderr, stderr, `${what}: stderr`);
}
