// What limitRuntime sees of E2B's rate limits, through the real e2b SDK and E2BRuntime against the E2B
// emulator answering 429 with Retry-After. The SDK waits out a control-plane 429 that carries Retry-After
// itself (`rateLimitRetries` times), and the RateLimitError it throws once it stops keeps no header: a
// limiter over E2B hears of a create's 429 only once the SDK has given up, and then without retryAfterMs,
// so it does not repeat the launch (the orchestrator's retry policy or failover decides). envd's 429 on a
// command start reaches the adapter as the SDK's SandboxNotFoundError, without its status.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, afterEach, before, describe, test } from "node:test";
import { type LimiterEvent, limitRuntime } from "@sandport/core";
import { expectCode } from "@sandport/testkit/assertions";
import { startE2BEmulator } from "@sandport/testkit/emulators/e2b";
import { E2BRuntime } from "./e2b-runtime.js";
import type { E2BRuntimeOptions } from "./options.js";

type Emulator = Awaited<ReturnType<typeof startE2BEmulator>>;

const CREATE = "POST /v2/sandboxes";
const START = "rpc process.Process/Start";

/** A limiter clock whose sleeps end at once and are recorded: the test asserts the exact wait. */
function recordingClock() {
  const sleeps: number[] = [];
  return { sleeps, now: () => Date.now(), sleep: async (ms: number) => void sleeps.push(ms) };
}

describe("limitRuntime over E2BRuntime (real e2b SDK → E2B emulator) under 429 with Retry-After", () => {
  let emulator: Emulator;
  const runtimes: E2BRuntime[] = [];
  const runtimeWith = (options: Partial<E2BRuntimeOptions> = {}) => {
    const runtime = new E2BRuntime({
      apiKey: emulator.apiKey,
      apiUrl: emulator.apiUrl,
      sandboxUrl: emulator.sandboxUrl,
      domain: emulator.domain,
      owner: "rate-limit-tests",
      ...options,
    });
    runtimes.push(runtime);
    return runtime;
  };

  before(async () => {
    emulator = await startE2BEmulator();
  });

  afterEach(async () => {
    emulator.clearFaults();
    for (const runtime of runtimes.splice(0)) assert.deepEqual(await runtime.settle(), [], "background cleanup failed");
    assert.deepEqual(emulator.liveSandboxes(), [], "sandboxes are still alive");
  });

  after(() => emulator.stop());

  test("a create refused once is waited out by the SDK itself: the launch succeeds and the limiter hears nothing", async () => {
    const events: LimiterEvent[] = [];
    const clock = recordingClock();
    const limited = limitRuntime(runtimeWith(), { onEvent: (event) => events.push(event), clock });
    emulator.resetRequests();
    emulator.injectFault({ route: CREATE, fault: { kind: "status", status: 429, retryAfterSeconds: 1 }, times: 1 });
    const handle = await limited.launch({ launchKey: randomUUID() });
    await limited.destroy(handle);
    assert.equal(emulator.countRequests(CREATE), 2, "refused, then sent again by the SDK");
    assert.deepEqual(
      events.filter((event) => event.type === "rate-limited"),
      [],
    );
    assert.deepEqual(clock.sleeps, [], "the limiter waited for nothing");
  });

  test("without the SDK's retries the 429 reaches the limiter as RATE_LIMITED, but with no retryAfterMs: not repeated", async () => {
    const events: LimiterEvent[] = [];
    const clock = recordingClock();
    const limited = limitRuntime(runtimeWith({ rateLimitRetries: 0 }), {
      onEvent: (event) => events.push(event),
      clock,
    });
    emulator.resetRequests();
    emulator.injectFault({ route: CREATE, fault: { kind: "status", status: 429, retryAfterSeconds: 1 }, times: 1 });
    const refused = await expectCode(limited.launch({ launchKey: randomUUID() }), "RATE_LIMITED");
    assert.equal(refused.retryable, true);
    assert.equal(refused.retryAfterMs, undefined, "the SDK's RateLimitError keeps no Retry-After");
    assert.equal(refused.details.status, 429);
    assert.equal(emulator.countRequests(CREATE), 1);
    assert.deepEqual(
      events.filter((event) => event.type === "rate-limited"),
      [{ type: "rate-limited", operation: "launch", attempt: 1, retryAfterMs: undefined, retrying: false }],
    );
    assert.deepEqual(clock.sleeps, []);
  });

  test("envd's 429 on a command start loses its status in the SDK: started again by the adapter, never by the limiter", async () => {
    const events: LimiterEvent[] = [];
    const limited = limitRuntime(runtimeWith(), { onEvent: (event) => events.push(event), clock: recordingClock() });
    const handle = await limited.launch({ launchKey: randomUUID() });
    try {
      emulator.resetRequests();
      emulator.injectFault({ route: START, fault: { kind: "status", status: 429, retryAfterSeconds: 1 }, times: 3 });
      // connect maps HTTP 429 to `unavailable`, which the SDK reports as SandboxNotFoundError: the adapter
      // finds the sandbox running, so the start was refused, but it cannot tell a 429 from a 502, 503 or 504.
      const refused = await expectCode(limited.exec(handle, { argv: ["true"] }), "PROVIDER_UNAVAILABLE");
      assert.equal(refused.details.refused, true, "nothing ran");
      assert.equal(refused.retryAfterMs, undefined);
      assert.equal(emulator.countRequests(START), 3, "the adapter's three attempts, and no repeat by the limiter");
      assert.deepEqual(
        events.filter((event) => event.type === "rate-limited"),
        [],
      );
    } finally {
      emulator.clearFaults();
      await limited.destroy(handle);
    }
  });
});
