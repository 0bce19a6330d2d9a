#!/usr/bin/env node
// Benchmark of the fleet layer of @sandport/core (SandboxPool, limitRuntime, failover) on the local runtime and
// over two emulators (E2B, Daytona) with 429s (with Retry-After) and 5xx injected. Not a test: it prints figures,
// ratios against a baseline measured in the same run, and counts that must be 0.
//
//   pnpm bench:fleet                              (builds, then 1,000 workloads per side)
//   node scripts/bench-fleet.mjs [workloads]      (after a build; e.g. 100 for a quick run)
//
// A workload is small: write a file, one exec that reads it and writes another, read that back.
// 1. Throughput: the workloads through a pool of 16 (`clean-workspace` reset, over a limiter) vs the same
//    workloads launching and destroying a sandbox each (same limiter, same concurrency of 16), in alternating
//    rounds, on the local runtime and on each emulator.
// 2. Lease latency: p50/p99 of `pool.lease()` from a warm pool (minIdle 16, settled) vs a cold one (minIdle 0).
// 3. At the end of each part: sandboxes left (counted on the runtime or the emulator), untyped errors, and
//    every rate-limit wait of the limiter against the Retry-After the emulator sent.
// 4. Failover: E2B refuses every create; the workloads move to Daytona; none ran on a runtime lacking a
//    capability it needed.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const repository = fileURLToPath(new URL("..", import.meta.url));
const load = (path) => import(pathToFileURL(join(repository, "packages", path)).href);
const { limitRuntime, resolveCapabilities, SandboxOrchestrator, SandboxPool, SandportError, SYSTEM_CLOCK } =
  await load("core/dist/index.js");
const { LocalRuntime } = await load("local/dist/index.js");
const { E2BRuntime } = await load("e2b/dist/index.js");
const { DaytonaRuntime } = await load("daytona/dist/index.js");
const { startE2BEmulator } = await load("testkit/dist/emulators/e2b.js");
const { startDaytonaEmulator } = await load("testkit/dist/emulators/daytona.js");

const argument = process.argv.slice(2).find((value) => /^\d+$/.test(value));
const WORKLOADS = argument ? Number(argument) : 1_000;
const FAILOVER_WORKLOADS = Math.min(100, WORKLOADS);
const CONCURRENCY = 16;
/** Rounds per side: each round runs `WORKLOADS / ROUNDS` workloads, the side going first alternating. */
const ROUNDS = 2;
/** The Retry-After every injected 429 carries, in seconds (the header's unit). */
const RETRY_AFTER_SECONDS = 1;
const BENCH_LABEL = { "sandport-bench": "fleet" };

const counts = {
  wrongResults: 0,
  untyped: 0,
  typedRetried: 0,
  typedFailed: 0,
  rateLimitWaits: 0,
  rateLimitMismatches: 0,
  left: 0,
};
const untypedSamples = [];
const wrongSamples = new Set();
/** Typed failures that were not retryable (or failed three times), by code and message. */
const typedCodes = new Map();

/** A clock for the limiter that records every wait it asks for (rate-limit waits; queue deadlines never fire here). */
function recordingClock(waits) {
  return {
    now: () => SYSTEM_CLOCK.now(),
    sleep: async (ms, signal) => {
      const started = performance.now();
      await SYSTEM_CLOCK.sleep(ms, signal);
      waits.push({ asked: ms, waited: performance.now() - started });
    },
  };
}

/** Runs `count` tasks with at most `limit` at once. */
async function inParallel(count, limit, task) {
  let next = 0;
  const worker = async () => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(limit, count) }, worker));
}

/** A workload whose calls resolved but whose command failed or whose file came back wrong: the bench's check. */
class WrongResult extends Error {}

/** One workload on a sandbox: write, exec, read back; checks the answer. */
async function work(runtime, handle, index) {
  const content = `workload ${index}\n`;
  await runtime.writeFiles(handle, [{ path: "in.txt", content }]);
  const result = await runtime.exec(handle, { shell: "cat in.txt > out.txt" });
  if (result.exitCode !== 0) throw new WrongResult(`exec exited ${result.exitCode}: ${result.stderr}`);
  const out = await runtime.readFile(handle, "out.txt");
  if (Buffer.from(out).toString("utf8") !== content)
    throw new WrongResult(`workload ${index} read back the wrong file`);
}

/**
 * Runs a workload, repeating it (at most twice more) after a typed, retryable failure: an injected 5xx fails a
 * workload honestly, and the bench counts it. Anything not a `SandportError` is an untyped error.
 */
async function attempt(fn) {
  for (let tries = 0; ; tries++) {
    try {
      return await fn();
    } catch (error) {
      if (error instanceof WrongResult) {
        counts.wrongResults++;
        wrongSamples.add(error.message.trim());
        return;
      }
      if (!(error instanceof SandportError)) {
        counts.untyped++;
        if (untypedSamples.length < 3) untypedSamples.push(error);
        return;
      }
      if (!error.retryable || tries >= 2) {
        counts.typedFailed++;
        const key = `${error.code}: ${error.message.slice(0, 100)}`;
        typedCodes.set(key, (typedCodes.get(key) ?? 0) + 1);
        return;
      }
      counts.typedRetried++;
    }
  }
}

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

/** The workloads without a pool: a launch and a destroy each. */
async function unpooled(runtime, count, offset) {
  await inParallel(count, CONCURRENCY, (index) =>
    attempt(async () => {
      const handle = await runtime.launch({ labels: BENCH_LABEL });
      try {
        await work(runtime, handle, offset + index);
      } finally {
        await runtime.destroy(handle);
      }
    }),
  );
}

/** The workloads through a pool; returns each lease's latency. */
async function pooled(runtime, poolId, minIdle, count, offset) {
  const pool = await SandboxPool.open(runtime, {
    poolId,
    minIdle,
    max: CONCURRENCY,
    launch: { labels: BENCH_LABEL },
    reset: "clean-workspace",
    checkBeforeLease: false,
  });
  await pool.whenSettled();
  const leaseMs = [];
  const started = performance.now();
  await inParallel(count, CONCURRENCY, (index) =>
    attempt(async () => {
      const leaseStarted = performance.now();
      const lease = await pool.lease({ timeoutMs: 120_000 });
      leaseMs.push({ started: leaseStarted, ms: performance.now() - leaseStarted });
      let mode = "reset";
      try {
        await work(runtime, lease.handle, offset + index);
      } catch (error) {
        mode = "destroy";
        throw error;
      } finally {
        await pool.release(lease, { mode });
      }
    }),
  );
  const elapsed = performance.now() - started;
  const report = await pool.close();
  if (!report.ok)
    console.log(
      `  pool ${poolId} closed with failures:`,
      report.failures.map((f) => f.error?.code),
    );
  // In the order the leases were asked for.
  return { leaseMs: leaseMs.sort((a, b) => a.started - b.started).map((entry) => entry.ms), elapsed };
}

/** Throughput pooled vs unpooled in alternating rounds, then lease latency warm vs cold. */
async function part(name, runtime, countLeft, inject) {
  console.log(`\n# ${name}: ${WORKLOADS} workloads per side, concurrency ${CONCURRENCY}, pool of ${CONCURRENCY}`);
  const perRound = Math.max(1, Math.floor(WORKLOADS / ROUNDS));
  const time = { pool: 0, raw: 0, leasing: 0 };
  const latency = { warm: [], cold: [] };
  let offset = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const sides = round % 2 === 0 ? ["raw", "pool"] : ["pool", "raw"];
    for (const side of sides) {
      inject?.(perRound);
      const started = performance.now();
      if (side === "raw") await unpooled(runtime, perRound, offset);
      else {
        const { leaseMs, elapsed } = await pooled(runtime, `bench-${name}-${round}`, CONCURRENCY, perRound, offset);
        latency.warm.push(...leaseMs);
        time.leasing += elapsed;
      }
      time[side] += performance.now() - started;
      offset += perRound;
    }
  }
  const total = perRound * ROUNDS;
  const poolRate = (total / time.pool) * 1000;
  const rawRate = (total / time.raw) * 1000;
  const leasingRate = (total / time.leasing) * 1000;
  console.log(
    `throughput (first lease to last release) pool ${leasingRate.toFixed(1).padStart(7)} /s   no pool ${rawRate
      .toFixed(1)
      .padStart(7)} /s   ratio ${(leasingRate / rawRate).toFixed(2)}`,
  );
  console.log(
    `throughput (pool open to close)         pool ${poolRate.toFixed(1).padStart(7)} /s   no pool ${rawRate
      .toFixed(1)
      .padStart(7)} /s   ratio ${(poolRate / rawRate).toFixed(2)}`,
  );

  // Lease latency: warm is every lease of the pooled rounds above (16 launched and settled before the first);
  // cold is one more round through a pool with minIdle 0, whose leases launch until it holds 16.
  inject?.(perRound);
  const cold = (await pooled(runtime, `bench-${name}-cold`, 0, perRound, offset)).leaseMs;
  // The first 16 leases of an empty pool each wait for a launch; later ones mostly find a released sandbox.
  latency.cold.push(...cold.slice(0, CONCURRENCY));
  latency["cold, all"] = cold;
  for (const side of ["warm", "cold", "cold, all"])
    console.log(
      `lease latency ${side.padEnd(9)}                     p50 ${percentile(latency[side], 50)
        .toFixed(2)
        .padStart(
          8,
        )} ms   p99 ${percentile(latency[side], 99).toFixed(2).padStart(8)} ms   (${latency[side].length} leases)`,
    );
  const left = await countLeft();
  counts.left += left;
  console.log(`sandboxes left                           ${left}`);
  return { poolRate, rawRate, latency };
}

/**
 * Checks every wait the limiter made against the Retry-After sent: each `rate-limited` event that retries must
 * carry it as `retryAfterMs`, and each completed wait of the limiter's clock (only rate-limit waits complete: a
 * queue deadline is aborted on admission) must ask for it and last at least that long.
 */
function checkWaits(events, waits) {
  const expected = RETRY_AFTER_SECONDS * 1000;
  const retrying = events.filter((event) => event.type === "rate-limited" && event.retrying);
  const wrongEvents = retrying.filter((event) => event.retryAfterMs !== expected).length;
  const wrongWaits = waits.filter((wait) => wait.asked !== expected).length;
  const short = waits.filter((wait) => wait.waited < wait.asked - 1).length;
  const unmatched = Math.abs(retrying.length - waits.length);
  const overshoot = waits.length ? Math.max(...waits.map((wait) => wait.waited - wait.asked)) : 0;
  counts.rateLimitWaits += waits.length;
  counts.rateLimitMismatches += wrongEvents + wrongWaits + short + unmatched;
  console.log(
    `rate-limit waits (limiter)               ${waits.length}: ≠ Retry-After ${wrongEvents + wrongWaits}, cut short ${short}, without an event ${unmatched}, timer overshoot at most ${overshoot.toFixed(1)} ms`,
  );
}

/**
 * Where the adapter or its SDK waits out a 429 itself (the limiter never sees it), the wait is read from the
 * emulator's log: each 429 on `route` and the next request on the same path, which must start no sooner than
 * the Retry-After after the 429 was answered.
 */
function checkRepeats(emulator, route) {
  const expected = RETRY_AFTER_SECONDS * 1000;
  const requests = emulator.requests.filter((request) => request.route === route);
  let short = 0;
  let unrepeated = 0;
  const gaps = [];
  requests.forEach((request, index) => {
    if (request.status !== 429) return;
    const next = requests.slice(index + 1).find((later) => later.path === request.path);
    if (!next || request.endedAt === undefined) {
      unrepeated++;
      return;
    }
    const gap = next.startedAt - request.endedAt;
    gaps.push(gap);
    if (gap < expected) short++;
  });
  counts.rateLimitWaits += gaps.length;
  counts.rateLimitMismatches += short;
  const range = gaps.length ? `${Math.min(...gaps)}-${Math.max(...gaps)} ms` : "none";
  console.log(
    `rate-limit waits (adapter, ${route}) ${gaps.length}: shorter than Retry-After ${short}, not repeated ${unrepeated}, waits ${range}`,
  );
}

/** Arms faults for the next round of `count` workloads: 429s with Retry-After and 500s, spread by `times`. */
function faultsFor(emulator, createRoute, readRoute) {
  return (count) => {
    const faults = Math.max(1, Math.round(count / 100));
    for (let i = 0; i < faults; i++) {
      const rateLimited = { kind: "status", status: 429, retryAfterSeconds: RETRY_AFTER_SECONDS };
      emulator.injectFault({ route: createRoute, fault: rateLimited });
      emulator.injectFault({ route: createRoute, fault: { kind: "status", status: 503 } });
      if (readRoute) emulator.injectFault({ route: readRoute, fault: rateLimited });
    }
  };
}

const started = performance.now();
const summary = {};

// Local runtime.
{
  const root = await mkdtemp(join(tmpdir(), "sandport-bench-fleet-"));
  try {
    const local = new LocalRuntime({ root });
    const runtime = limitRuntime(local, { maxLaunchesInFlight: CONCURRENCY });
    const countLeft = async () => (await local.findByLabels(BENCH_LABEL)).length;
    summary.local = await part("local", runtime, countLeft);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

// The emulators: E2B (its SDK waits out Retry-After itself before the adapter sees a 429) and Daytona (whose
// adapter reads Retry-After into `retryAfterMs`, which the limiter waits out).
for (const name of ["e2b", "daytona"]) {
  const emulator = name === "e2b" ? await startE2BEmulator() : await startDaytonaEmulator();
  try {
    const inner =
      name === "e2b"
        ? new E2BRuntime({
            apiKey: emulator.apiKey,
            apiUrl: emulator.apiUrl,
            sandboxUrl: emulator.sandboxUrl,
            domain: emulator.domain,
          })
        : new DaytonaRuntime({ apiKey: emulator.apiKey, apiUrl: emulator.apiUrl, target: emulator.target });
    const events = [];
    const waits = [];
    const runtime = limitRuntime(inner, {
      maxLaunchesInFlight: CONCURRENCY,
      onEvent: (event) => events.push(event),
      clock: recordingClock(waits),
    });
    const createRoute = name === "e2b" ? "POST /v2/sandboxes" : "POST /api/sandbox";
    // A read's path names its sandbox, and one sandbox's calls are in turn: its 429 and its repeat pair up.
    const readRoute = name === "e2b" ? undefined : "POST /toolbox/:id/files/bulk-download";
    summary[name] = await part(
      name,
      runtime,
      async () => emulator.liveSandboxes().length,
      faultsFor(emulator, createRoute, readRoute),
    );
    const sent429 = emulator.requests.filter((r) => r.route === createRoute && r.status === 429).length;
    const sent5xx = emulator.requests.filter((r) => r.route === createRoute && r.status >= 500).length;
    console.log(`faults answered on create                429 × ${sent429}, 5xx × ${sent5xx}`);
    checkWaits(events, waits);
    if (readRoute) checkRepeats(emulator, readRoute);
  } finally {
    await emulator.stop();
  }
}

// Failover: E2B refuses every create; Daytona takes the workloads.
{
  const e2bEmulator = await startE2BEmulator();
  const daytonaEmulator = await startDaytonaEmulator();
  try {
    e2bEmulator.injectFault({ route: "POST /v2/sandboxes", fault: { kind: "status", status: 429 }, times: 1_000_000 });
    const e2b = new E2BRuntime({
      apiKey: e2bEmulator.apiKey,
      apiUrl: e2bEmulator.apiUrl,
      sandboxUrl: e2bEmulator.sandboxUrl,
      domain: e2bEmulator.domain,
    });
    const daytona = new DaytonaRuntime({
      apiKey: daytonaEmulator.apiKey,
      apiUrl: daytonaEmulator.apiUrl,
      target: daytonaEmulator.target,
    });
    const runtimes = [e2b, daytona];
    let failovers = 0;
    const orchestrator = new SandboxOrchestrator(runtimes, {
      onEvent: (event) => {
        if (event.type === "failover") failovers++;
      },
    });
    // Half the workloads turn the network off, which needs a `networkPolicy` mode on whichever runtime runs them.
    const needs = (index) => (index % 2 === 0 ? { network: "none" } : {});
    // Checked here by hand, not with the orchestrator's own capability needs: a mode, not an absence.
    const lacking = (capabilities, launch) =>
      launch.network !== undefined && !["domains", "cidr", "all-or-none"].includes(capabilities.networkPolicy);
    let onSecond = 0;
    let lackingCount = 0;
    let failed = 0;
    await inParallel(FAILOVER_WORKLOADS, CONCURRENCY, async (index) => {
      const launch = { labels: BENCH_LABEL, ...needs(index) };
      const result = await attempt(() =>
        orchestrator.run({
          launch,
          files: [{ path: "in.txt", content: `workload ${index}\n` }],
          steps: [{ shell: "cat in.txt > out.txt" }],
          collect: ["out.txt"],
        }),
      );
      if (!result?.ok) {
        failed++;
        return;
      }
      if (result.runtime?.index === 1) onSecond++;
      const ranOn = runtimes[result.runtime?.index ?? -1];
      if (!ranOn || lacking(resolveCapabilities(ranOn), launch)) lackingCount++;
    });
    const left = e2bEmulator.liveSandboxes().length + daytonaEmulator.liveSandboxes().length;
    counts.left += left;
    console.log(`\n# failover: ${FAILOVER_WORKLOADS} workloads, E2B refusing every create`);
    console.log(
      `completed on the second runtime          ${onSecond} of ${FAILOVER_WORKLOADS} (${failed} failed, ${failovers} failover events)`,
    );
    console.log(`ran on a runtime lacking a capability    ${lackingCount}`);
    console.log(`sandboxes left                           ${left}`);
    summary.failover = { onSecond, lackingCount, failed };
  } finally {
    await e2bEmulator.stop();
    await daytonaEmulator.stop();
  }
}

console.log(`\n# totals (${((performance.now() - started) / 1000).toFixed(0)} s, ${WORKLOADS} workloads per side)`);
console.log(`sandboxes left                           ${counts.left} (must be 0)`);
console.log(`untyped errors                           ${counts.untyped} (must be 0)`);
for (const error of untypedSamples) console.log("  e.g.", error);
console.log(`commands that failed or read back wrong    ${counts.wrongResults} ${[...wrongSamples].join("; ")}`);
console.log(`typed failures repeated                  ${counts.typedRetried} (injected 5xx)`);
console.log(`typed failures not repeated              ${counts.typedFailed}`);
for (const [code, count] of typedCodes) console.log(`  ${count} × ${code}`);
console.log(
  `rate-limit waits ≠ Retry-After           ${counts.rateLimitMismatches} of ${counts.rateLimitWaits} (must be 0)`,
);
const failed =
  counts.left + counts.untyped + counts.rateLimitMismatches + summary.failover.lackingCount + summary.failover.failed;
if (failed !== 0 || summary.failover.onSecond !== FAILOVER_WORKLOADS) process.exitCode = 1;
