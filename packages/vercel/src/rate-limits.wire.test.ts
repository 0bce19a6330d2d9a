// What limitRuntime sees of Vercel's rate limits, through the real @vercel/sandbox SDK and
// VercelSandboxRuntime against the Vercel emulator answering 429 with Retry-After. The SDK waits out a
// Retry-After of up to 20 s and repeats twice; its APIError keeps the answer, so a 429 it gave up on
// reaches the limiter with the provider's retryAfterMs, which it waits out before repeating a keyed launch.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, afterEach, before, describe, test } from "node:test";
import { type LimiterEvent, limitRuntime } from "@sandport/core";
import { expectCode } from "@sandport/testkit/assertions";
import { startVercelEmulator, type VercelEmulator } from "@sandport/testkit/emulators/vercel";
import { emulatorOptions } from "../test/emulated.js";
import { VercelSandboxRuntime } from "./vercel-runtime.js";

const CREATE = "POST /v3/sandboxes";
/** The SDK's own attempts at a request answered 429: the first and two repeats. */
const SDK_ATTEMPTS = 3;

/** A limiter clock whose sleeps end at once and are recorded: the test asserts the exact wait. */
function recordingClock() {
  const sleeps: number[] = [];
  return { sleeps, now: () => Date.now(), sleep: async (ms: number) => void sleeps.push(ms) };
}

const rateLimited = (events: readonly LimiterEvent[]) => events.filter((event) => event.type === "rate-limited");

describe("limitRuntime over VercelSandboxRuntime (real @vercel/sandbox → Vercel emulator) under 429 with Retry-After", () => {
  let emulator: VercelEmulator;
  let runtime: VercelSandboxRuntime;

  before(async () => {
    emulator = await startVercelEmulator();
    runtime = new VercelSandboxRuntime({ ...emulatorOptions(emulator), owner: "rate-limit-tests" });
  });

  afterEach(async () => {
    emulator.clearFaults();
    assert.deepEqual(await runtime.settle(), [], "background cleanup failed");
    assert.deepEqual(emulator.liveSandboxes(), [], "sandboxes are still alive");
  });

  after(() => emulator.stop());

  test("a create the SDK gave up on reaches the limiter with the provider's retryAfterMs; the repeat launches", async () => {
    const events: LimiterEvent[] = [];
    const clock = recordingClock();
    const limited = limitRuntime(runtime, { onEvent: (event) => events.push(event), clock });
    emulator.resetRequests();
    emulator.injectFault({
      route: CREATE,
      fault: { kind: "status", status: 429, retryAfterSeconds: 1 },
      times: SDK_ATTEMPTS,
    });
    const handle = await limited.launch({ launchKey: randomUUID() });
    await limited.destroy(handle);
    assert.deepEqual(rateLimited(events), [
      { type: "rate-limited", operation: "launch", attempt: 1, retryAfterMs: 1_000, retrying: true },
    ]);
    assert.deepEqual(clock.sleeps, [1_000], "the limiter waited exactly the Retry-After");
    assert.equal(emulator.countRequests(CREATE), SDK_ATTEMPTS + 1, "the SDK's attempts, then the repeat");
  });

  test("a launch without a launch key is not repeated: RATE_LIMITED with retryAfterMs goes to the caller", async () => {
    const events: LimiterEvent[] = [];
    const clock = recordingClock();
    const limited = limitRuntime(runtime, { onEvent: (event) => events.push(event), clock });
    emulator.resetRequests();
    emulator.injectFault({
      route: CREATE,
      fault: { kind: "status", status: 429, retryAfterSeconds: 1 },
      times: SDK_ATTEMPTS,
    });
    const refused = await expectCode(limited.launch({}), "RATE_LIMITED");
    assert.equal(refused.retryAfterMs, 1_000);
    assert.deepEqual(rateLimited(events), [
      { type: "rate-limited", operation: "launch", attempt: 1, retryAfterMs: 1_000, retrying: false },
    ]);
    assert.deepEqual(clock.sleeps, []);
    assert.equal(emulator.countRequests(CREATE), SDK_ATTEMPTS);
  });
});
