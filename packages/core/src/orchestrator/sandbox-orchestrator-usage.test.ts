// Usage metering through the orchestrator, on a real local runtime: what a workload or session did
// to its sandbox is counted from the calls it made, emitted as a `usage` event, and returned.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type LocalTestRuntime, localTestRuntime } from "@sandport/testkit/fakes";
import type { OrchestratorEvent } from "./events.js";
import type { OrchestratorOptions } from "./options.js";
import { SandboxOrchestrator } from "./sandbox-orchestrator.js";
import type { SandboxSession } from "./sandbox-session.js";
import { WorkloadError } from "./workload-error.js";

let local: LocalTestRuntime;
before(async () => {
  local = await localTestRuntime("orchestrator-usage");
});
after(async () => {
  await local?.cleanup();
});

function orchestrate(options: OrchestratorOptions = {}) {
  const events: OrchestratorEvent[] = [];
  const orchestrator = new SandboxOrchestrator(local.runtime, { onEvent: (event) => events.push(event), ...options });
  return { orchestrator, events };
}

test("a workload's usage: its sandbox's life, each step, the bytes in and out; emitted once destroyed", async () => {
  const { orchestrator, events } = orchestrate({
    prices: { currency: "credits", providers: { local: { sandboxSecond: 2, gibIn: 0 } } },
  });
  const result = await orchestrator.run({
    launch: { labels: { job: "usage" } },
    files: [
      { path: "a.txt", content: "héllo" },
      { path: "b.bin", content: new Uint8Array([1, 2, 3]) },
    ],
    steps: [
      { name: "echo stdin", argv: ["cat"], stdin: "abc€" },
      { name: "write", shell: "printf 1234567 > out.txt; printf err >&2" },
    ],
    collect: ["out.txt"],
  });
  const usage = result.usage;
  assert.ok(usage);
  assert.equal(usage.sandboxId, result.sandboxId);
  assert.deepEqual(usage.runtime, { index: 0, provider: "local" });
  assert.equal(usage.end, "destroyed");
  assert.equal(usage.reused, false);
  assert.equal(typeof usage.createdAt, "string", "the local runtime reports when it created the sandbox");
  assert.equal(usage.execs.count, 2);
  const stepsMs = result.steps.reduce((sum, step) => sum + step.durationMs, 0);
  assert.equal(usage.execs.durationMs, stepsMs);
  assert.deepEqual(usage.bytesIn, { files: 6 + 3, stdin: 6 });
  assert.deepEqual(usage.bytesOut, { files: 7, output: 6 + 3 });
  const launched = Date.parse(usage.launchedAt);
  const destroyed = Date.parse(usage.destroyedAt ?? "");
  assert.ok(destroyed >= launched);
  assert.equal(usage.sandboxSeconds, (destroyed - launched) / 1000);
  assert.equal(usage.estimate?.currency, "credits");
  assert.deepEqual(
    usage.estimate?.lines.map((line) => line.price),
    ["sandboxSecond", "gibIn"],
  );
  assert.equal(usage.estimate?.total, usage.sandboxSeconds * 2);
  const types = events.map((event) => event.type);
  assert.deepEqual(types.slice(-2), ["destroyed", "usage"]);
  const emitted = events.at(-1);
  assert.ok(emitted?.type === "usage");
  assert.deepEqual(emitted.usage, usage);
});

test("a kept sandbox's usage says it was kept and still exists; a failed workload's result carries its usage", async () => {
  const { orchestrator, events } = orchestrate();
  const kept = await orchestrator.run({ launch: {}, steps: [{ argv: ["true"] }], teardown: "keep" });
  try {
    assert.equal(kept.usage?.end, "kept");
    assert.equal(kept.usage?.destroyedAt, undefined);
    assert.equal(kept.usage?.estimate, undefined, "no price table, no estimate");
    assert.deepEqual(
      events.slice(-2).map((event) => event.type),
      ["kept", "usage"],
    );
  } finally {
    const handle = kept.sandboxId === undefined ? undefined : await local.runtime.getById(kept.sandboxId);
    if (handle) await local.runtime.destroy(handle);
  }
  try {
    await orchestrator.run({ launch: {}, steps: [{ shell: "printf ab" }], collect: ["missing.txt"] });
    assert.fail("expected a rejection");
  } catch (error) {
    assert.ok(error instanceof WorkloadError);
    assert.equal(error.result.usage?.end, "destroyed");
    assert.equal(error.result.usage?.bytesOut.output, 2);
    assert.equal(error.result.usage?.bytesOut.files, 0);
  }
});

test("a session's usage counts its calls, streamed ones included, and is final and emitted on close", async () => {
  const { orchestrator, events } = orchestrate({ prices: { currency: "USD", providers: {} } });
  let closed: SandboxSession | undefined;
  {
    await using session = await orchestrator.session({ labels: { job: "usage-session" } });
    await session.writeFiles([{ path: "in.txt", content: "12345" }]);
    await session.exec({ shell: "cat in.txt" });
    for await (const _event of session.execStream({ argv: ["cat"], stdin: "xy" })) {
      // drained
    }
    await session.readFile("in.txt");
    const open = session.usage;
    assert.equal(open.end, "open");
    assert.equal(open.execs.count, 2);
    assert.deepEqual(open.bytesIn, { files: 5, stdin: 2 });
    assert.deepEqual(open.bytesOut, { files: 5, output: 7 });
    assert.equal(open.estimate?.total, undefined, "the table has no prices for local");
    closed = session;
  }
  assert.equal(closed?.usage.end, "destroyed", "final once the session is closed");
  const emitted = events.at(-1);
  assert.ok(emitted?.type === "usage");
  assert.equal(emitted.usage.end, "destroyed");
  assert.equal(typeof emitted.usage.destroyedAt, "string");
  assert.equal(emitted.usage.execs.count, 2);
  assert.deepEqual(
    events.slice(-2).map((event) => event.type),
    ["destroyed", "usage"],
  );
});
