// What limitRuntime sees of Freestyle's rate limits, through the real freestyle SDK and FreestyleRuntime
// against the Freestyle emulator answering 429 with Retry-After. The SDK's FreestyleApiError keeps the
// status but not the answer's headers: a create refused with 429 reaches the limiter as RATE_LIMITED
// without retryAfterMs, which it passes to the caller rather than guess a wait.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, afterEach, before, describe, test } from "node:test";
import { type LimiterEvent, limitRuntime } from "@sandport/core";
import { expectCode } from "@sandport/testkit/assertions";
import { type FreestyleEmulator, startFreestyleEmulator } from "@sandport/testkit/emulators/freestyle";
import { emulatorOptions, HOME } from "../test/emulated.js";
import { FreestyleRuntime } from "./freestyle-runtime.js";

const CREATE = "POST /v5/vms";

describe("limitRuntime over FreestyleRuntime (real freestyle SDK → Freestyle emulator) under 429 with Retry-After", () => {
  let emulator: FreestyleEmulator;
  let runtime: FreestyleRuntime;

  before(async () => {
    emulator = await startFreestyleEmulator({ workspaceDirectory: HOME });
    runtime = new FreestyleRuntime({ ...emulatorOptions(emulator), owner: "rate-limit-tests" });
  });

  afterEach(async () => {
    emulator.clearFaults();
    assert.deepEqual(await runtime.settle(), [], "background cleanup failed");
  });

  after(() => emulator.stop());

  test("a create refused with 429 reaches the limiter without retryAfterMs: not repeated, even with a launch key", async () => {
    const events: LimiterEvent[] = [];
    const sleeps: number[] = [];
    const clock = { now: () => Date.now(), sleep: async (ms: number) => void sleeps.push(ms) };
    const limited = limitRuntime(runtime, { onEvent: (event) => events.push(event), clock });
    emulator.resetRequests();
    emulator.injectFault({ route: CREATE, fault: { kind: "status", status: 429, retryAfterSeconds: 1 }, times: 1 });
    const refused = await expectCode(limited.launch({ launchKey: randomUUID() }), "RATE_LIMITED");
    assert.equal(refused.retryAfterMs, undefined, "the SDK's error keeps no Retry-After");
    assert.equal(emulator.countRequests(CREATE), 1);
    assert.deepEqual(
      events.filter((event) => event.type === "rate-limited"),
      [{ type: "rate-limited", operation: "launch", attempt: 1, retryAfterMs: undefined, retrying: false }],
    );
    assert.deepEqual(sleeps, []);
  });
});
