// A warm pool over a limited DaytonaRuntime against the Daytona emulator (the real Daytona SDK on the wire), with
// 429s carrying Retry-After: one on create, which the adapter sends again itself after the Retry-After (a refused
// create made nothing), and one on the sandbox listing the pool's open runs, which the SDK repeats after the
// Retry-After. Neither reaches
// the limiter (over E2B neither would: its SDK waits out Retry-After itself); every lease gets a sandbox, and
// closing the pool leaves nothing alive in the emulator.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type FleetClock, type LimiterEvent, limitRuntime, SandboxPool, SYSTEM_CLOCK } from "@sandport/core";
import { startDaytonaEmulator } from "@sandport/testkit/emulators/daytona";
import { DaytonaRuntime } from "./daytona-runtime.js";

type Emulator = Awaited<ReturnType<typeof startDaytonaEmulator>>;
const CREATE = "POST /api/sandbox";
const LIST = "GET /api/sandbox";

describe("SandboxPool over a limited DaytonaRuntime (real Daytona SDK → Daytona emulator)", () => {
  let emulator: Emulator;

  before(async () => {
    emulator = await startDaytonaEmulator();
  });
  after(() => emulator.stop());

  test("429s on create and on the listing are absorbed below the limiter; leases succeed; close leaves 0 live", async () => {
    const inner = new DaytonaRuntime({ apiKey: emulator.apiKey, apiUrl: emulator.apiUrl, target: emulator.target });
    const waits: number[] = [];
    // The real clock, recording each wait the limiter made to its end (a rate-limit wait; a queue's deadline
    // wait is aborted when the launch is admitted).
    const clock: FleetClock = {
      now: () => SYSTEM_CLOCK.now(),
      sleep: async (ms, signal) => {
        await SYSTEM_CLOCK.sleep(ms, signal);
        waits.push(ms);
      },
    };
    const events: LimiterEvent[] = [];
    const runtime = limitRuntime(inner, { maxLaunchesInFlight: 2, clock, onEvent: (event) => events.push(event) });
    emulator.injectFault({ route: CREATE, fault: { kind: "status", status: 429, retryAfterSeconds: 1 } });
    emulator.injectFault({ route: LIST, fault: { kind: "status", status: 429, retryAfterSeconds: 1 } });

    const pool = await SandboxPool.open(runtime, { poolId: "wire-pool", minIdle: 2, max: 3, reset: "clean-workspace" });
    const leases = await Promise.all([pool.lease({ timeoutMs: 30_000 }), pool.lease({ timeoutMs: 30_000 })]);
    for (const [index, lease] of leases.entries()) {
      await runtime.writeFiles(lease.handle, [{ path: "n.txt", content: `${index}` }]);
      const result = await runtime.exec(lease.handle, { argv: ["cat", "n.txt"] });
      assert.equal(result.stdout, `${index}`);
    }
    for (const lease of leases) await pool.release(lease);

    // Each 429 was answered once, and a request of its route succeeded after it.
    for (const route of [CREATE, LIST]) {
      const requests = emulator.requests.filter((request) => request.route === route);
      const limited = requests.filter((request) => request.status === 429);
      assert.equal(limited.length, 1, route);
      const answered = limited[0]?.endedAt ?? Number.POSITIVE_INFINITY;
      assert.ok(
        requests.some((request) => request.status < 300 && request.startedAt >= answered),
        route,
      );
    }
    // The create and the listing were each repeated, and no sooner than its Retry-After (1 s) after the 429
    // (other launches' creates may come between: the pool launches several at once).
    await pool.whenSettled();
    for (const route of [CREATE, LIST]) {
      const requests = emulator.requests.filter((request) => request.route === route);
      const limitedAt = requests.find((request) => request.status === 429)?.endedAt ?? Number.POSITIVE_INFINITY;
      const timeline = JSON.stringify(requests.map((request) => [request.status, request.startedAt - limitedAt]));
      assert.ok(
        requests.some((request) => request.status < 300 && request.startedAt >= limitedAt + 1_000),
        `${route}: a request after the Retry-After: ${timeline}`,
      );
    }
    // Neither 429 reached the limiter: the adapter and the SDK waited them out below it, and nothing was refused.
    assert.deepEqual(
      events.filter((event) => event.type === "rate-limited"),
      [],
    );
    assert.deepEqual(waits, []);

    const report = await pool.close();
    assert.equal(report.ok, true, JSON.stringify(report.failures));
    assert.ok(report.destroyed.length >= 2);
    assert.deepEqual(emulator.liveSandboxes(), []);
  });
});
