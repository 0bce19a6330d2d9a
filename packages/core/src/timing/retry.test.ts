import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { SandportError } from "../errors/sandport-error.js";
import { retry } from "./retry.js";

/** A fake clock: sleeping advances time instantly and records the delays. */
function fakeClock() {
  let now = 0;
  const delays: number[] = [];
  return {
    delays,
    now: () => now,
    sleep: async (ms: number) => {
      delays.push(ms);
      now += ms;
    },
  };
}

const unavailable = (retryAfterMs?: number) =>
  new SandportError({ code: "PROVIDER_UNAVAILABLE", message: "503", retryAfterMs });

describe("retry", () => {
  test("retries retryable errors until success", async () => {
    const clock = fakeClock();
    let attempts = 0;
    const value = await retry(
      async ({ attempt }) => {
        attempts = attempt;
        if (attempt < 3) throw unavailable();
        return "ok";
      },
      { ...clock, random: () => 0.5, policy: { jitter: "full", initialDelayMs: 100 } },
    );
    assert.equal(value, "ok");
    assert.equal(attempts, 3);
    assert.deepEqual(clock.delays, [50, 100]); // half of 100, half of 200
  });

  test("never retries a non-retryable error", async () => {
    const clock = fakeClock();
    let calls = 0;
    const notRetryable = [
      new SandportError({ code: "INVALID_REQUEST", message: "bad" }),
      new SandportError({ code: "AUTH", message: "401" }),
      new SandportError({ code: "PROVIDER_UNAVAILABLE", message: "no", retryable: false }),
      new Error("plain error"),
    ];
    for (const error of notRetryable) {
      calls = 0;
      await assert.rejects(
        retry(async () => {
          calls++;
          throw error;
        }, clock),
        (thrown) => thrown === error,
      );
      assert.equal(calls, 1);
    }
    assert.deepEqual(clock.delays, []);
  });

  test("stops at maxAttempts with the last error", async () => {
    const clock = fakeClock();
    let calls = 0;
    await assert.rejects(
      retry(
        async () => {
          calls++;
          throw unavailable();
        },
        { ...clock, policy: { maxAttempts: 3, jitter: "none" } },
      ),
      (error: unknown) => SandportError.hasCode(error, "PROVIDER_UNAVAILABLE"),
    );
    assert.equal(calls, 3);
  });

  test("never waits past the absolute budget", async () => {
    const clock = fakeClock();
    let calls = 0;
    await assert.rejects(
      retry(
        async () => {
          calls++;
          throw unavailable();
        },
        { ...clock, policy: { maxAttempts: 100, jitter: "none", initialDelayMs: 100, budgetMs: 1_000 } },
      ),
    );
    // Waits of 100, 200, 400 fit (700 ms); the next (800) would end past 1 000.
    assert.deepEqual(clock.delays, [100, 200, 400]);
    assert.equal(calls, 4);
    assert.ok(clock.now() < 1_000);
  });

  test("reads the Retry-After of an error that is not a SandportError through retryAfterMsOf", async () => {
    const clock = fakeClock();
    const raw = Object.assign(new Error("429"), { headers: { "retry-after": "2" } });
    await retry(
      async ({ attempt }) => {
        if (attempt === 1) throw raw;
        return "ok";
      },
      {
        ...clock,
        isRetryable: (error) => error === raw,
        retryAfterMsOf: (error) => Number((error as typeof raw).headers["retry-after"]) * 1000,
        policy: { jitter: "none", initialDelayMs: 10 },
      },
    );
    assert.deepEqual(clock.delays, [2_000]);
  });

  test("honours Retry-After, and gives up when it exceeds the budget", async () => {
    const clock = fakeClock();
    await retry(
      async ({ attempt }) => {
        if (attempt === 1) throw unavailable(700);
        return "ok";
      },
      { ...clock, policy: { jitter: "none", initialDelayMs: 10 } },
    );
    assert.deepEqual(clock.delays, [700]);

    const late = fakeClock();
    let calls = 0;
    await assert.rejects(
      retry(
        async () => {
          calls++;
          throw unavailable(60_000);
        },
        { ...late, policy: { budgetMs: 5_000 } },
      ),
    );
    assert.equal(calls, 1);
    assert.deepEqual(late.delays, []);
  });

  test("passes the remaining budget to each attempt", async () => {
    const clock = fakeClock();
    const remaining: number[] = [];
    await retry(
      async ({ attempt, remainingMs }) => {
        remaining.push(remainingMs);
        if (attempt < 2) throw unavailable();
      },
      { ...clock, policy: { jitter: "none", initialDelayMs: 250, budgetMs: 1_000 } },
    );
    assert.deepEqual(remaining, [1_000, 750]);
  });

  test("abort stops retrying", async () => {
    const controller = new AbortController();
    let calls = 0;
    await assert.rejects(
      retry(
        async () => {
          calls++;
          controller.abort();
          throw unavailable();
        },
        { signal: controller.signal, policy: { initialDelayMs: 10_000, jitter: "none", budgetMs: 60_000 } },
      ),
      (error: unknown) => SandportError.hasCode(error, "ABORTED"),
    );
    assert.equal(calls, 1);
  });
});
