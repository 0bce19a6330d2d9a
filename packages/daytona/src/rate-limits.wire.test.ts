// What limitRuntime sees of Daytona's rate limits, through the real Daytona SDK (newest and oldest) and
// DaytonaRuntime against the Daytona emulator answering 429 with Retry-After. The SDK never repeats a 429 and
// keeps the answer's headers on its error; the adapter sends a refused create or command start again itself
// (three attempts in all, each after the Retry-After), so the limiter hears of a 429 the adapter gave up on,
// with the provider's retryAfterMs: it waits that out and repeats a launch that carries a launch key, and
// never repeats a launch without one or a command.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, afterEach, before, describe, test } from "node:test";
import { type LimiterEvent, limitRuntime } from "@sandport/core";
import { expectCode } from "@sandport/testkit/assertions";
import { type DaytonaEmulator, startDaytonaEmulator } from "@sandport/testkit/emulators/daytona";
import { emulatorOptions, SDKS } from "../test/emulated.js";
import { DaytonaRuntime } from "./daytona-runtime.js";

const CREATE = "POST /api/sandbox";
const EXECUTE = "POST /toolbox/:id/process/execute";
/** The adapter's own attempts at a request Daytona refused. */
const ADAPTER_ATTEMPTS = 3;

/** A limiter clock whose sleeps end at once and are recorded: the test asserts the exact wait. */
function recordingClock() {
  const sleeps: number[] = [];
  return { sleeps, now: () => Date.now(), sleep: async (ms: number) => void sleeps.push(ms) };
}

const rateLimited = (events: readonly LimiterEvent[]) => events.filter((event) => event.type === "rate-limited");

for (const sdk of SDKS) {
  describe(`limitRuntime over DaytonaRuntime (${sdk.label} → Daytona emulator) under 429 with Retry-After`, () => {
    let emulator: DaytonaEmulator;
    let runtime: DaytonaRuntime;

    before(async () => {
      emulator = await startDaytonaEmulator();
      runtime = new DaytonaRuntime({ ...emulatorOptions(emulator, sdk), owner: "rate-limit-tests" });
    });

    afterEach(async () => {
      emulator.clearFaults();
      assert.deepEqual(await runtime.settle(), [], "background work failed");
      const live = emulator.liveSandboxes().filter((sandbox) => sandbox.state !== "destroying");
      assert.deepEqual(live, [], "sandboxes are still alive");
    });

    after(() => emulator.stop());

    test("a create the adapter gave up on reaches the limiter with the provider's retryAfterMs; the repeat launches", async () => {
      const events: LimiterEvent[] = [];
      const clock = recordingClock();
      const limited = limitRuntime(runtime, { onEvent: (event) => events.push(event), clock });
      emulator.resetRequests();
      emulator.injectFault({
        route: CREATE,
        fault: { kind: "status", status: 429, retryAfterSeconds: 1 },
        times: ADAPTER_ATTEMPTS,
      });
      const handle = await limited.launch({ launchKey: randomUUID() });
      await limited.destroy(handle);
      assert.deepEqual(rateLimited(events), [
        { type: "rate-limited", operation: "launch", attempt: 1, retryAfterMs: 1_000, retrying: true },
      ]);
      assert.deepEqual(clock.sleeps, [1_000], "the limiter waited exactly the Retry-After");
      assert.equal(emulator.countRequests(CREATE), ADAPTER_ATTEMPTS + 1, "the adapter's attempts, then the repeat");
    });

    test("a launch without a launch key is not repeated: RATE_LIMITED with retryAfterMs goes to the caller", async () => {
      const events: LimiterEvent[] = [];
      const clock = recordingClock();
      const limited = limitRuntime(runtime, { onEvent: (event) => events.push(event), clock });
      emulator.resetRequests();
      emulator.injectFault({
        route: CREATE,
        fault: { kind: "status", status: 429, retryAfterSeconds: 1 },
        times: ADAPTER_ATTEMPTS,
      });
      const refused = await expectCode(limited.launch({}), "RATE_LIMITED");
      assert.equal(refused.retryAfterMs, 1_000);
      assert.notEqual(refused.details.outcomeUnknown, true, "a 429 created nothing");
      assert.deepEqual(rateLimited(events), [
        { type: "rate-limited", operation: "launch", attempt: 1, retryAfterMs: 1_000, retrying: false },
      ]);
      assert.deepEqual(clock.sleeps, []);
      assert.equal(emulator.countRequests(CREATE), ADAPTER_ATTEMPTS);
    });

    test("a command start refused with 429 is sent again by the adapter only, never by the limiter", async () => {
      const events: LimiterEvent[] = [];
      const clock = recordingClock();
      const limited = limitRuntime(runtime, { onEvent: (event) => events.push(event), clock });
      const handle = await limited.launch({ launchKey: randomUUID() });
      try {
        emulator.resetRequests();
        emulator.injectFault({
          route: EXECUTE,
          fault: { kind: "status", status: 429, retryAfterSeconds: 1 },
          times: ADAPTER_ATTEMPTS,
        });
        const refused = await expectCode(limited.exec(handle, { argv: ["true"] }), "RATE_LIMITED");
        assert.equal(refused.retryAfterMs, 1_000);
        // The adapter's refused starts, and none sent again by the limiter (the engine's sweep for the
        // command's marker after a failed start is another executeCommand, not refused).
        const starts = emulator.requests.filter((request) => request.route === EXECUTE && request.status === 429);
        assert.equal(starts.length, ADAPTER_ATTEMPTS, "no repeat by the limiter");
        assert.deepEqual(rateLimited(events), [
          { type: "rate-limited", operation: "exec", attempt: 1, retryAfterMs: 1_000, retrying: false },
        ]);
        assert.deepEqual(clock.sleeps, []);
      } finally {
        emulator.clearFaults();
        await limited.destroy(handle);
      }
    });
  });
}
