// A warm pool over a limited DaytonaRuntime against the Daytona emulator (the real Daytona SDK on the wire): a
// 429 with Retry-After on create is waited out by the limiter for exactly as long as the header says, every
// lease gets a sandbox, and closing the pool leaves nothing alive in the emulator. Daytona, not E2B: the e2b SDK
// waits out Retry-After itself and does not expose the header, so a limiter over E2B never sees it.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type FleetClock, type LimiterEvent, limitRuntime, SandboxPool, SYSTEM_CLOCK } from "@sandport/core";
import { startDaytonaEmulator } from "@sandport/testkit/emulators/daytona";
import { DaytonaRuntime } from "./daytona-runtime.js";

type Emulator = Awaited<ReturnType<typeof startDaytonaEmulator>>;
const CREATE = "POST /api/sandbox";

describe("SandboxPool over a limited DaytonaRuntime (real Daytona SDK → Daytona emulator)", () => {
  let emulator: Emulator;

  before(async () => {
    emulator = await startDaytonaEmulator();
  });
  after(() => emulator.stop());

  test("a 429 on create is waited out for its Retry-After; leases succeed; close leaves 0 live", async () => {
    const inner = new DaytonaRuntime({ apiKey: emulator.apiKey, apiUrl: emulator.apiUrl, target: emulator.target });
    const waits: number[] = [];
    // The real clock, recording what the limiter asks to wait.
    const clock: FleetClock = {
      now: () => SYSTEM_CLOCK.now(),
      sleep: (ms, signal) => {
        waits.push(ms);
        return SYSTEM_CLOCK.sleep(ms, signal);
      },
    };
    const events: LimiterEvent[] = [];
    const runtime = limitRuntime(inner, { maxLaunchesInFlight: 2, clock, onEvent: (event) => events.push(event) });
    emulator.injectFault({ route: CREATE, fault: { kind: "status", status: 429, retryAfterSeconds: 1 } });

    const pool = await SandboxPool.open(runtime, { poolId: "wire-pool", minIdle: 2, max: 3, reset: "clean-workspace" });
    const leases = await Promise.all([pool.lease({ timeoutMs: 30_000 }), pool.lease({ timeoutMs: 30_000 })]);
    for (const [index, lease] of leases.entries()) {
      await runtime.writeFiles(lease.handle, [{ path: "n.txt", content: `${index}` }]);
      const result = await runtime.exec(lease.handle, { argv: ["cat", "n.txt"] });
      assert.equal(result.stdout, `${index}`);
    }
    for (const lease of leases) await pool.release(lease);

    // The 429 was sent once, with Retry-After: 1, and the limiter waited exactly 1000 ms before repeating it.
    const creates = emulator.requests.filter((request) => request.route === CREATE);
    const limited = creates.filter((request) => request.status === 429);
    assert.equal(limited.length, 1);
    const rateLimited = events.filter((event) => event.type === "rate-limited");
    assert.deepEqual(
      rateLimited.map((event) => ({ retryAfterMs: event.retryAfterMs, retrying: event.retrying })),
      [{ retryAfterMs: 1_000, retrying: true }],
    );
    assert.deepEqual(waits, [1_000]);
    // The repeat went out after the wait: a later create started at least 1 s after the 429 was answered.
    const answered = limited[0]?.endedAt ?? Number.POSITIVE_INFINITY;
    assert.ok(creates.some((request) => request.status < 300 && request.startedAt >= answered + 1_000));

    const report = await pool.close();
    assert.equal(report.ok, true, JSON.stringify(report.failures));
    assert.ok(report.destroyed.length >= 2);
    assert.deepEqual(emulator.liveSandboxes(), []);
  });
});
