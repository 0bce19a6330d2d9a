import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { type CommandStatus, type ExecRequest, type ExecResult, isAbsence, type SandboxHandle } from "@sandport/core";
import {
  byteLength,
  CAP_STOP_BOUND_MS,
  collectEvents,
  ENDLESS_BUDGET_MS,
  fileExists,
  pollUntil,
  preview,
  since,
} from "./assertions.js";
import type { ConformanceCheckId } from "./checks.js";
import { LateProbe } from "./late-probe.js";
import { assertEventGrammar } from "./streaming.js";
import type { CheckGroup } from "./suite.js";

/** The ways the port runs a command to its end, each with its own check ids. */
export type CommandSurface = "exec" | "streaming" | "interactive" | "async";

/** How a command ended, as one surface reports it. */
interface Ending {
  readonly result: ExecResult;
  /** Wall-clock ms from the call to the result. */
  readonly elapsedMs: number;
  /** The async family's final status, whose exit code must agree with the logs'. */
  readonly status?: CommandStatus;
}

/** Bytes of output a surface may keep past its cap: none. */
const CAP = 4096;
/** Output written just before a non-zero exit; large enough to span many chunks of any transport. */
const TAIL_BYTES = 65_536;

/**
 * Runs `request` to its end through `surface`, failing (instead of hanging)
 * when no result arrives within `boundMs`.
 */
async function runToEnd<H extends SandboxHandle>(
  group: CheckGroup<H>,
  surface: CommandSurface,
  request: ExecRequest,
  boundMs: number,
): Promise<Ending> {
  const { runtime, suite } = group;
  const handle = group.sandbox();
  const start = performance.now();
  let status: CommandStatus | undefined;
  const ending = (async (): Promise<ExecResult> => {
    switch (surface) {
      case "exec":
        return runtime.exec(handle, request);
      case "streaming":
        return assertEventGrammar(await collectEvents(() => runtime.execStream!(handle, request)));
      case "interactive": {
        const process = await runtime.spawn!(handle, request);
        return process.result;
      }
      case "async": {
        const ref = await runtime.startCommand!(handle, { ...request, sessionId: `outcome-${randomUUID()}` });
        status = await pollUntil(
          () => runtime.commandStatus!(handle, ref),
          (current) => current.state === "exited",
          { timeoutMs: boundMs, intervalMs: suite.timeouts.pollIntervalMs, what: `command ${ref.commandId}` },
        );
        return runtime.commandLogs!(handle, ref);
      }
    }
  })();
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${surface}: no result within ${boundMs} ms`)), boundMs + 1_000);
  });
  try {
    const result = await Promise.race([ending, bound]);
    return { result, elapsedMs: since(start), ...(status ? { status } : {}) };
  } finally {
    clearTimeout(timer);
    ending.catch(() => {}); // a late rejection after the bound failed the check is not a second failure
  }
}

/** A one-line picture of a result for failure messages. */
function show(result: ExecResult): string {
  const { exitCode, timedOut, truncated, durationMs } = result;
  return `exitCode ${exitCode}, timedOut ${timedOut}, truncated ${truncated}, durationMs ${durationMs}, stdout ${preview(result.stdout)}`;
}

/**
 * Registers the checks of how a command ends, for one `surface` (`exec`,
 * `execStream`, `spawn`, `startCommand`): every runtime must report the same
 * result for the same ending.
 *
 * - `<surface>.timeout-result`: killed by its run budget → `timedOut: true`,
 *   `exitCode: null`, `truncated: false`, `durationMs` at least the budget and
 *   at most the budget plus `promptMs`.
 * - `<surface>.output-cap-result`: an endless producer stopped at the output
 *   cap → `truncated: true`, `timedOut: false`, `exitCode: null`, no more than
 *   the cap kept, within half its budget (`CAP_STOP_BOUND_MS`).
 * - `<surface>.kill-deadline`: a command (and its children) ignoring SIGTERM is
 *   still killed at its budget: the result comes within the bound, says
 *   `timedOut`, and a {@link LateProbe} proves nothing kept running.
 * - `<surface>.signal-exit`: a command killed by a signal the runtime did not
 *   send (`sh -c 'kill -KILL $$'`) → `timedOut: false`, `truncated: false`,
 *   its output kept (the exit code is the provider's to report).
 * - `<surface>.exit-after-output`: a normal non-zero exit right after 64 KiB of
 *   output → that exact code, every byte, both flags false.
 */
export function declareCommandOutcomeChecks<H extends SandboxHandle>(
  group: CheckGroup<H>,
  surface: CommandSurface,
): void {
  const { suite } = group;
  const { commandTimeoutMs, promptMs } = suite.timeouts;
  const id = (name: string) => `${surface}.${name}` as ConformanceCheckId;
  const mode = suite.capabilities.outputStreams;

  group.check(id("timeout-result"), async () => {
    const { result, elapsedMs, status } = await runToEnd(
      group,
      surface,
      { shell: "echo before; sleep 30", timeoutMs: commandTimeoutMs },
      commandTimeoutMs + promptMs,
    );
    assert.equal(result.timedOut, true, `timedOut (${show(result)})`);
    assert.equal(result.exitCode, null, `exitCode of a command killed by its budget (${show(result)})`);
    assert.equal(result.truncated, false, `truncated (${show(result)})`);
    if (status) assert.equal(status.exitCode, null, "commandStatus's exitCode of a killed command");
    // 2 ms of slack for timer rounding; a budget is never cut short.
    assert.ok(
      result.durationMs >= commandTimeoutMs - 2,
      `durationMs ${result.durationMs} is shorter than the ${commandTimeoutMs} ms budget`,
    );
    assert.ok(
      result.durationMs <= commandTimeoutMs + promptMs,
      `durationMs ${result.durationMs} is past the budget ${commandTimeoutMs} ms + ${promptMs} ms`,
    );
    assert.ok(elapsedMs <= commandTimeoutMs + promptMs, `the result came after ${elapsedMs} ms`);
  });

  group.check(id("output-cap-result"), async () => {
    const { result, elapsedMs, status } = await runToEnd(
      group,
      surface,
      { argv: ["yes"], maxOutputBytes: CAP, timeoutMs: ENDLESS_BUDGET_MS },
      CAP_STOP_BOUND_MS,
    );
    assert.equal(result.truncated, true, `truncated (${show(result)})`);
    assert.equal(result.timedOut, false, `timedOut of a command stopped by the cap (${show(result)})`);
    assert.equal(result.exitCode, null, `exitCode of a command stopped by the cap (${show(result)})`);
    if (status) assert.equal(status.exitCode, null, "commandStatus's exitCode of a stopped command");
    const kept = byteLength(result.stdout) + byteLength(result.stderr);
    assert.ok(kept <= CAP, `kept ${kept} bytes past the ${CAP}-byte cap`);
    assert.match(result.stdout, /^(y\n)*y?$/, "the kept output is the command's own");
    assert.ok(elapsedMs <= CAP_STOP_BOUND_MS, `stopped ${elapsedMs} ms after the call`);
  });

  group.check(id("kill-deadline"), async () => {
    const handle = group.sandbox();
    const name = `${surface}-kill-deadline`;
    // The result says the command ended, so the kill has landed: a short settle is enough.
    const probe = new LateProbe(name, commandTimeoutMs);
    // An ignored signal stays ignored across exec: the loop's `sleep`s ignore SIGTERM too.
    const shell = `trap '' TERM; echo started > ${name}-started; ${probe.shell}`;
    const { result, elapsedMs } = await runToEnd(
      group,
      surface,
      { shell, timeoutMs: commandTimeoutMs },
      commandTimeoutMs + promptMs,
    );
    assert.equal(await fileExists(group.runtime, handle, `${name}-started`), true, "the command never ran");
    assert.equal(result.timedOut, true, `timedOut (${show(result)})`);
    assert.equal(result.exitCode, null, `exitCode of a command killed by its budget (${show(result)})`);
    assert.ok(elapsedMs <= commandTimeoutMs + promptMs, `the result came after ${elapsedMs} ms`);
    assert.equal(await probe.survived(group.runtime, handle), false, "a command ignoring SIGTERM outlived its budget");
  });

  group.check(id("signal-exit"), async () => {
    // Killed by a signal the runtime did not send: neither flag may claim the runtime stopped it. As argv, so
    // `$$` is the command's own shell, not a shell the runtime may wrap a script in (a session's, say).
    const request = { argv: ["sh", "-c", "echo dying; kill -KILL $$"] };
    const { result } = await runToEnd(group, surface, request, promptMs * 2);
    assert.equal(result.timedOut, false, `timedOut of a command killed by its own signal (${show(result)})`);
    assert.equal(result.truncated, false, `truncated (${show(result)})`);
    assert.equal(result.stdout, "dying\n", "the output before the signal is kept");
  });

  group.check(id("exit-after-output"), async () => {
    const shell = `head -c ${TAIL_BYTES} /dev/zero | tr '\\000' a; printf err-tail >&2; printf out-tail; exit 7`;
    const { result, status } = await runToEnd(group, surface, { shell }, promptMs * 2);
    assert.equal(result.exitCode, 7, `exitCode (${show(result)})`);
    assert.equal(result.timedOut, false, "timedOut");
    assert.equal(result.truncated, false, "truncated");
    if (status) assert.equal(status.exitCode, 7, "commandStatus's exitCode");
    // Where the mode is not declared, either mode's output is right.
    const combined = mode === "combined" || (isAbsence(mode) && result.stderr === "");
    const stdout = `${"a".repeat(TAIL_BYTES)}${combined ? "err-tail" : ""}out-tail`;
    assert.equal(result.stdout.length, stdout.length, "every byte of stdout written before the exit arrives");
    assert.ok(result.stdout === stdout, "stdout is the command's output, in order");
    assert.equal(result.stderr, combined ? "" : "err-tail", "stderr");
  });
}
