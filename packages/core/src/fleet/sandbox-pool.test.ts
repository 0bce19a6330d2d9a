import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { type LocalTestRuntime, localTestRuntime, withoutMethods } from "@sandport/testkit/fakes";
import { SandportError } from "../errors/sandport-error.js";
import type { SandboxRuntime } from "../port/sandbox-runtime.js";
import { ManualClock } from "./clock.fixture.js";
import { limitRuntime } from "./limit-runtime.js";
import type { PoolEvent } from "./pool-events.js";
import { POOL_LABEL, type SandboxPoolOptions } from "./pool-options.js";
import { SandboxPool } from "./sandbox-pool.js";

let local: LocalTestRuntime;
/** The local runtime, typed as the port: what a pool sees. */
let runtime: SandboxRuntime & Required<Pick<SandboxRuntime, "findByLabels" | "getById">>;
let pools = 0;

before(async () => {
  local = await localTestRuntime("fleet-pool");
  runtime = local.runtime;
});
after(async () => {
  await local.cleanup();
});

/** A pool with a fresh id over `runtime` (the local runtime by default), recording its events. */
async function openPool(options: Partial<SandboxPoolOptions> = {}, over?: SandboxRuntime) {
  const events: PoolEvent[] = [];
  const pool = await SandboxPool.open(over ?? runtime, {
    poolId: `pool-${++pools}`,
    onEvent: (event) => events.push(event),
    ...options,
  });
  const ids = async () => (await runtime.findByLabels({ [POOL_LABEL]: pool.poolId })).map((handle) => handle.id).sort();
  return { pool, events, ids };
}

const types = (events: readonly PoolEvent[]) => events.map((event) => event.type);
const exists = async (id: string) => (await runtime.getById(id)) !== undefined;

/** The local runtime with some members replaced: a runtime that fails where the local one would not. */
function overriding(overrides: Partial<Record<keyof SandboxRuntime, unknown>>): SandboxRuntime {
  return new Proxy(runtime, {
    get(target, key) {
      if (key in overrides) return overrides[key as keyof SandboxRuntime];
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

describe("SandboxPool over the local runtime", () => {
  test("keeps minIdle sandboxes launched, and a lease returns one of them without launching", async () => {
    const { pool, events, ids } = await openPool({ minIdle: 2, max: 3 });
    await pool.whenSettled();
    const ready = await ids();
    assert.equal(ready.length, 2);
    assert.deepEqual(types(events), ["launched", "launched"]);
    const lease = await pool.lease();
    assert.ok(ready.includes(lease.handle.id));
    assert.equal(lease.state, "leased");
    assert.equal(lease.labels[POOL_LABEL], pool.poolId);
    const result = await runtime.exec(lease.handle, { argv: ["echo", "leased"] });
    assert.equal(result.stdout, "leased\n");
    await pool.whenSettled();
    // The lease itself launched nothing: the third launch is the refill that keeps two idle.
    assert.deepEqual(types(events), ["launched", "launched", "leased", "launched"]);
    assert.deepEqual(pool.stats(), { idle: 2, leased: 1, launching: 0, owned: 3, waiting: 0 });
    const report = await pool.close();
    assert.equal(report.ok, true);
    assert.equal(report.destroyed.length, 3);
    assert.deepEqual(report.revokedLeases, [lease.handle.id]);
    assert.equal(lease.state, "revoked");
    assert.deepEqual(await ids(), []);
  });

  test("release with reset: replace destroys the sandbox and launches a fresh one", async () => {
    const { pool, events, ids } = await openPool({ minIdle: 1 });
    const lease = await pool.lease();
    await runtime.writeFiles(lease.handle, [{ path: "secret.txt", content: "from the first lease" }]);
    await pool.release(lease);
    assert.equal(lease.state, "released");
    assert.equal(await exists(lease.handle.id), false);
    await pool.whenSettled();
    const [fresh] = await ids();
    assert.ok(fresh !== undefined && fresh !== lease.handle.id);
    const next = await pool.lease();
    assert.equal(next.handle.id, fresh);
    await assert.rejects(runtime.readFile(next.handle, "secret.txt"), (error) =>
      SandportError.hasCode(error, "NOT_FOUND"),
    );
    const replaced = events.find((event) => event.type === "replaced");
    assert.deepEqual(replaced && { ...replaced }, { type: "replaced", sandboxId: lease.handle.id, reason: "reset" });
    assert.equal((await pool.close()).ok, true);
  });

  test("release with reset: clean-workspace empties the workspace back to its launch layout and keeps the sandbox", async () => {
    const { pool, events } = await openPool({ minIdle: 1, max: 1, reset: "clean-workspace" });
    const lease = await pool.lease();
    const before = await runtime.exec(lease.handle, { shell: "ls -A" });
    await runtime.exec(lease.handle, {
      shell: "mkdir -p deep/er && echo x > deep/er/f && echo y > .hidden && echo z > $TMPDIR/t && chmod 0500 deep/er",
    });
    await pool.release(lease);
    const next = await pool.lease();
    assert.equal(next.handle.id, lease.handle.id);
    const after = await runtime.exec(next.handle, { shell: "ls -A; ls -A $TMPDIR" });
    assert.equal(after.stdout, before.stdout);
    // The temporary directory survived, emptied: commands can still use it.
    assert.equal(
      (await runtime.exec(next.handle, { shell: "echo ok > $TMPDIR/again && cat $TMPDIR/again" })).stdout,
      "ok\n",
    );
    assert.ok(types(events).includes("reset"));
    assert.ok(!types(events).includes("replaced"));
    assert.equal((await pool.close()).ok, true);
  });

  test("cleaning a workspace removes links without following them, even to the host under isolation: none", async () => {
    const plain = await localTestRuntime("fleet-pool-plain", { isolation: "none" });
    const outside = mkdtempSync(join(tmpdir(), "sandport-fleet-outside-"));
    try {
      writeFileSync(join(outside, "keep.txt"), "host data");
      // Read-only: a cleaner that made a link's target writable (chmod follows a link it is given) would show.
      chmodSync(outside, 0o500);
      const plainRuntime: SandboxRuntime = plain.runtime;
      const { pool } = await openPool({ minIdle: 1, max: 1, reset: "clean-workspace" }, plainRuntime);
      const lease = await pool.lease();
      const made = await plainRuntime.exec(lease.handle, {
        argv: [
          "sh",
          "-c",
          'ln -s "$1" escape && ln -s "$1/keep.txt" file-link && mkdir d && ln -s "$1" d/inner',
          "sh",
          outside,
        ],
      });
      assert.equal(made.exitCode, 0, made.stderr);
      const modeBefore = statSync(outside).mode;
      await pool.release(lease);
      const next = await pool.lease();
      assert.equal(next.handle.id, lease.handle.id, "the clean was proven, so the sandbox was kept");
      assert.equal(readFileSync(join(outside, "keep.txt"), "utf8"), "host data");
      assert.equal(statSync(outside).mode, modeBefore);
      assert.equal(
        (await plainRuntime.exec(next.handle, { shell: "ls -A | grep -v '^.tmp$' | wc -l" })).stdout.trim(),
        "0",
      );
      assert.equal((await pool.close()).ok, true);
    } finally {
      chmodSync(outside, 0o700);
      rmSync(outside, { recursive: true, force: true });
      await plain.cleanup();
    }
  });

  test("a released sandbox failing its health check after cleaning is replaced instead of kept", async () => {
    const { pool, events } = await openPool({
      minIdle: 1,
      max: 1,
      reset: "clean-workspace",
      healthCheck: { argv: ["false"] },
    });
    const lease = await pool.lease();
    await pool.release(lease);
    assert.equal(await exists(lease.handle.id), false);
    const replaced = events.find((event) => event.type === "replaced");
    assert.equal(replaced?.type === "replaced" && replaced.reason, "reset-failed");
    const next = await pool.lease();
    assert.notEqual(next.handle.id, lease.handle.id);
    assert.equal((await pool.close()).ok, true);
  });

  test("release with destroy destroys the sandbox; a second release is refused", async () => {
    const { pool, events } = await openPool({ minIdle: 0, max: 1 });
    const lease = await pool.lease();
    await pool.release(lease, { mode: "destroy" });
    assert.equal(await exists(lease.handle.id), false);
    assert.deepEqual(types(events), ["launched", "leased", "released", "usage", "destroyed"]);
    await assert.rejects(pool.release(lease), (error) => SandportError.hasCode(error, "INVALID_REQUEST"));
    assert.equal((await pool.close()).destroyed.length, 0);
  });

  test("each sandbox's life, idle and leased, is reported once it is destroyed, estimated from the pool's prices", async () => {
    const clock = new ManualClock();
    const prices = { currency: "EUR", providers: { [runtime.provider]: { sandboxSecond: 0.002 } } };
    const { pool, events } = await openPool({ minIdle: 1, max: 1, clock, prices });
    await pool.whenSettled();
    clock.advance(60_000);
    const lease = await pool.lease();
    clock.advance(30_000);
    await pool.release(lease, { mode: "destroy" });
    const usage = events.flatMap((event) => (event.type === "usage" ? [event.usage] : []));
    assert.equal(usage.length, 1);
    const [reported] = usage;
    assert.equal(reported?.sandboxId, lease.handle.id);
    assert.equal(reported?.end, "destroyed");
    assert.equal(reported?.sandboxSeconds, 90, "60 s idle and 30 s leased");
    assert.equal(reported?.estimate?.currency, "EUR");
    assert.ok(Math.abs((reported?.estimate?.total ?? 0) - 0.18) < 1e-9, String(reported?.estimate?.total));
    await assert.rejects(
      SandboxPool.open(runtime, { poolId: "bad-prices", prices: { currency: "", providers: {} } as never }),
      (error) => SandportError.hasCode(error, "INVALID_REQUEST"),
    );
    assert.equal((await pool.close()).ok, true);
  });

  test("a pool opened with the id of one whose process ended reclaims its sandboxes, idle and leased", async () => {
    const first = await openPool({ minIdle: 2, max: 3 });
    const other = await openPool({ minIdle: 1 });
    await first.pool.lease();
    await first.pool.whenSettled();
    await other.pool.whenSettled();
    const left = await first.ids();
    assert.equal(left.length, 3);
    // The first pool is never closed, as if its process died: a new pool with its id takes over.
    const events: PoolEvent[] = [];
    const second = await SandboxPool.open(runtime, {
      poolId: first.pool.poolId,
      minIdle: 0,
      onEvent: (event) => events.push(event),
    });
    assert.deepEqual(
      events
        .filter((event) => event.type === "reclaimed")
        .map((event) => (event.type === "reclaimed" ? event.sandboxId : ""))
        .sort(),
      left,
    );
    for (const id of left) assert.equal(await exists(id), false);
    // Another pool's sandboxes are untouched.
    assert.equal((await other.ids()).length, 1);
    assert.equal((await second.close()).ok, true);
    assert.equal((await other.pool.close()).ok, true);
  });

  test("refuses a runtime without label search, launching nothing", async () => {
    const blind = withoutMethods(runtime, ["findByLabels"]);
    const before = (await runtime.findByLabels({})).length;
    await assert.rejects(SandboxPool.open(blind, { poolId: "no-search" }), (error) =>
      SandportError.hasCode(error, "UNSUPPORTED"),
    );
    assert.equal((await runtime.findByLabels({})).length, before);
  });

  test("an idle sandbox past maxIdleMs is destroyed and replaced by maintain()", async () => {
    const clock = new ManualClock();
    const { pool, events, ids } = await openPool({ minIdle: 1, maxIdleMs: 60_000, clock });
    await pool.whenSettled();
    const [old] = await ids();
    clock.advance(60_000);
    assert.deepEqual(await pool.maintain(), { checked: 1, replaced: 0 });
    clock.advance(1);
    assert.deepEqual(await pool.maintain(), { checked: 1, replaced: 1 });
    await pool.whenSettled();
    assert.equal(await exists(old as string), false);
    const [fresh] = await ids();
    assert.ok(fresh !== undefined && fresh !== old);
    assert.ok(events.some((event) => event.type === "replaced" && event.reason === "expired"));
    await pool.close();
  });

  test("an idle sandbox failing its health check is destroyed and replaced", async () => {
    const { pool, events, ids } = await openPool({ minIdle: 1, healthCheck: { argv: ["test", "!", "-e", "broken"] } });
    await pool.whenSettled();
    const [old] = await ids();
    const [handle] = await runtime.findByLabels({ [POOL_LABEL]: pool.poolId });
    await runtime.writeFiles(handle!, [{ path: "broken", content: "" }]);
    assert.deepEqual(await pool.maintain(), { checked: 1, replaced: 1 });
    await pool.whenSettled();
    assert.equal(await exists(old as string), false);
    assert.equal((await ids()).length, 1);
    const replaced = events.find((event) => event.type === "replaced");
    assert.equal(replaced?.type === "replaced" && replaced.reason, "unhealthy");
    await pool.close();
  });

  test("without a declared warmLease, each idle sandbox is checked before it is leased", async () => {
    const unsure = overriding({ capabilities: { ...runtime.capabilities, warmLease: "unknown" } });
    const healthCheck = { argv: ["test", "!", "-e", "broken"] };
    for (const [over, checked] of [
      [unsure, true],
      [runtime, false],
    ] as const) {
      const { pool, ids } = await openPool({ minIdle: 1, max: 2, healthCheck }, over);
      await pool.whenSettled();
      const [broken] = await runtime.findByLabels({ [POOL_LABEL]: pool.poolId });
      await runtime.writeFiles(broken!, [{ path: "broken", content: "" }]);
      const lease = await pool.lease();
      // Checked: the broken one was replaced and the lease got a new one. Trusted (warmLease): it was handed out.
      assert.equal(lease.handle.id !== broken!.id, checked);
      await pool.whenSettled();
      assert.equal((await ids()).includes(broken!.id), !checked);
      await pool.close();
    }
  });

  test("a lease gives up after three sandboxes in a row fail the health check before it", async () => {
    const { pool, events } = await openPool({
      minIdle: 1,
      max: 1,
      checkBeforeLease: true,
      healthCheck: { argv: ["false"] },
    });
    await assert.rejects(pool.lease(), (error) => {
      assert.ok(SandportError.isInstance(error));
      assert.match(error.message, /3 sandboxes in a row failed the health check/);
      return true;
    });
    await pool.whenSettled();
    assert.equal(events.filter((event) => event.type === "replaced").length, 3);
    assert.equal((await pool.close()).ok, true);
  });

  test("refuses malformed options before launching anything", async () => {
    const before = (await runtime.findByLabels({})).length;
    for (const options of [
      { poolId: "has space" },
      { poolId: "p", launch: { launchKey: "mine" } },
      { poolId: "p", launch: { labels: { [POOL_LABEL]: "other" } } },
      { poolId: "p", minIdle: 3, max: 2 },
      { poolId: "p", healthCheck: { argv: [] } },
      { poolId: "p", reset: "wipe" },
      { poolId: "p", maxIdle: 5 },
      { poolId: "p", launch: { lifetimeMs: -1 } },
    ]) {
      await assert.rejects(SandboxPool.open(runtime, options as SandboxPoolOptions), (error) =>
        SandportError.hasCode(error, "INVALID_REQUEST"),
      );
    }
    assert.equal((await runtime.findByLabels({})).length, before);
  });

  test("at max, a lease waits for a release, and past its deadline fails with DEADLINE_EXCEEDED", async () => {
    const clock = new ManualClock();
    const { pool } = await openPool({ minIdle: 1, max: 1, reset: "clean-workspace", clock });
    await pool.whenSettled();
    const first = await pool.lease();
    const late = pool.lease({ timeoutMs: 1_000 });
    await clock.sleepsAsked(1);
    clock.advance(1_000);
    await assert.rejects(late, (error) => SandportError.hasCode(error, "DEADLINE_EXCEEDED"));
    const waiting = pool.lease({ timeoutMs: 1_000 });
    await clock.sleepsAsked(2);
    assert.equal(pool.stats().waiting, 1);
    await pool.release(first);
    const second = await waiting;
    assert.equal(second.handle.id, first.handle.id);
    assert.equal((await pool.close()).ok, true);
  });

  test("aborting a waiting lease leaves the queue; close waits drainMs for a lease still out", async () => {
    const clock = new ManualClock();
    const { pool } = await openPool({ minIdle: 1, max: 1, clock });
    await pool.whenSettled();
    const first = await pool.lease();
    const controller = new AbortController();
    const aborted = pool.lease({ signal: controller.signal });
    assert.equal(pool.stats().waiting, 1);
    controller.abort(new Error("caller gave up"));
    await assert.rejects(aborted, (error) => SandportError.hasCode(error, "ABORTED"));
    assert.equal(pool.stats().waiting, 0);
    const closing = pool.close({ drainMs: 60_000 });
    // The drain waits on the pool clock, which never moves here: only the release can end it.
    await clock.sleepsAsked(2);
    assert.equal(first.state, "leased");
    await pool.release(first);
    const report = await closing;
    assert.deepEqual(report.revokedLeases, []);
    assert.deepEqual(report.destroyed, [first.handle.id]);
    assert.equal(await exists(first.handle.id), false);
  });

  test("a failed launch rejects the lease waiting on it with its error, and a lost launch is found and destroyed", async () => {
    const refused = new SandportError({
      code: "PROVIDER_UNAVAILABLE",
      provider: "local",
      message: "connection refused",
      details: { sent: false },
    });
    const down = overriding({ launch: async () => Promise.reject(refused) });
    const { pool, events } = await openPool({ minIdle: 0 }, down);
    await assert.rejects(pool.lease(), (error) => error === refused);
    assert.ok(types(events).includes("launch-failed"));
    assert.equal((await pool.close()).ok, true);

    // The provider made the sandbox and the answer was lost: the pool finds it by its launch key and destroys it.
    const lost = overriding({
      launch: async (...args: Parameters<SandboxRuntime["launch"]>) => {
        await runtime.launch(...args);
        throw new SandportError({ code: "PROVIDER_UNAVAILABLE", provider: "local", message: "response lost" });
      },
    });
    const second = await openPool({ minIdle: 0 }, lost);
    await assert.rejects(second.pool.lease(), (error) => SandportError.hasCode(error, "PROVIDER_UNAVAILABLE"));
    await second.pool.whenSettled();
    assert.deepEqual(await second.ids(), []);
    assert.equal((await second.pool.close()).ok, true);
  });

  test("close reports a sandbox it could not destroy, and a listener that threw", async () => {
    const stuck = new SandportError({ code: "DESTROY_UNVERIFIED", provider: "local", message: "still there" });
    let failing = "";
    const flaky = overriding({
      destroy: async (...args: Parameters<SandboxRuntime["destroy"]>) => {
        if (args[0].id === failing) throw stuck;
        return runtime.destroy(...args);
      },
    });
    const { pool, events, ids } = await openPool(
      {
        minIdle: 2,
        onEvent: (event) => {
          events.push(event);
          if (event.type === "destroyed") throw new Error("listener bug");
        },
      },
      flaky,
    );
    await pool.whenSettled();
    const left = await ids();
    failing = left[0] as string;
    const report = await pool.close();
    assert.equal(report.ok, false);
    assert.deepEqual(report.destroyed, [left[1]]);
    assert.deepEqual(
      report.failures.map((failure) => [failure.operation, failure.sandboxId, failure.error]),
      [["destroy", failing, stuck]],
    );
    assert.deepEqual(
      report.listenerErrors.map((error) => [error.code, error.message]),
      [["UNEXPECTED", 'the onEvent listener threw on a "destroyed" event: listener bug']],
    );
    assert.ok(events.some((event) => event.type === "failure"));
    assert.deepEqual(await ids(), [failing]);
    await runtime.destroy({ id: failing, provider: "local", labels: {} } as never);
    await assert.rejects(pool.lease(), (error) => SandportError.hasCode(error, "INVALID_REQUEST"));
  });

  test("runs over a limited runtime: the pool's launches respect the limiter", async () => {
    const limited = limitRuntime(runtime, { maxLive: 2 });
    const { pool } = await openPool({ minIdle: 2, max: 2 }, limited);
    await pool.whenSettled();
    assert.equal(limited.load().live, 2);
    const lease = await pool.lease();
    await pool.release(lease, { mode: "destroy" });
    await pool.whenSettled();
    assert.equal(limited.load().live, 2);
    assert.equal((await pool.close()).ok, true);
    assert.equal(limited.load().live, 0);
  });
});
