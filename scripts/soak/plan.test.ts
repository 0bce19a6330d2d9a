// The soak's pure parts: the fault plan a seed draws, the emulator rules that arm it, and the tally.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { FaultInjector } from "../../packages/testkit/src/emulators/harness/faults.ts";
import { FAULT_KINDS, planFaults, reportedBy, rulesOf, seededRandom, tally } from "./plan.mjs";

const ROUTES = ["POST /create", "POST /exec", "DELETE /sandbox"];

describe("the fault plan", () => {
  test("a seed always draws the same plans; another seed draws others", () => {
    const plans = (seed: number) => {
      const random = seededRandom(seed);
      return Array.from({ length: 20 }, () => planFaults(random, ROUTES));
    };
    assert.deepEqual(plans(42), plans(42));
    assert.notDeepEqual(plans(42), plans(43));
    assert.throws(() => seededRandom(1.5), /integer/);
  });

  test("0 to 3 faults a workload, on the given routes, of every kind, over many workloads", () => {
    const random = seededRandom(7);
    const counts = new Set<number>();
    const kinds = new Set<string>();
    for (let index = 0; index < 500; index++) {
      const plan = planFaults(random, ROUTES);
      counts.add(plan.length);
      for (const fault of plan) {
        assert.ok(ROUTES.includes(fault.route));
        assert.ok(fault.skip >= 0 && fault.skip <= 2);
        kinds.add(fault.kind);
      }
    }
    assert.deepEqual([...counts].sort(), [0, 1, 2, 3]);
    assert.deepEqual([...kinds].sort(), [...FAULT_KINDS].sort());
    assert.throws(() => planFaults(random, []), /at least one route/);
  });

  test("the rules arm each fault after its skipped requests, and the emulator accepts every one", () => {
    const rules = rulesOf(
      [
        { route: "POST /exec", kind: "429", skip: 2 },
        { route: "POST /create", kind: "latency-past-deadline", skip: 0 },
        ...FAULT_KINDS.map((kind) => ({ route: "DELETE /sandbox", kind, skip: 0 })),
      ],
      { latencyMs: 5_000 },
    );
    assert.deepEqual(rules.slice(0, 4), [
      { route: "POST /exec", fault: { kind: "latency", ms: 0 } },
      { route: "POST /exec", fault: { kind: "latency", ms: 0 } },
      { route: "POST /exec", fault: { kind: "status", status: 429, retryAfterSeconds: 1 } },
      { route: "POST /create", fault: { kind: "latency", ms: 5_000 } },
    ]);
    const injector = new FaultInjector();
    for (const rule of rules) injector.add(rule);
    // Consumed in order: the two pass-throughs, then the 429.
    assert.deepEqual(
      [1, 2, 3].map(() => injector.take("POST /exec")?.kind),
      ["latency", "latency", "status"],
    );
    assert.throws(() => rulesOf([{ route: "x", kind: "meteor", skip: 0 }], { latencyMs: 1 }), /unknown fault kind/);
  });
});

describe("the tally", () => {
  const outcome = (fields: Partial<Record<string, unknown>>) => ({
    ok: false,
    code: undefined,
    untyped: false,
    hung: false,
    wrongOutput: false,
    possibleLeak: false,
    ...fields,
  });

  test("sums each kind of outcome and sorts what was left alive by how it was reported", () => {
    const summary = tally(
      [
        outcome({ ok: true }),
        outcome({ code: "PROVIDER_UNAVAILABLE", possibleLeak: true }),
        outcome({ code: "UNEXPECTED", untyped: true }),
        outcome({ hung: true }),
        outcome({ ok: true, wrongOutput: true }),
        outcome({ code: "PROVIDER_UNAVAILABLE" }),
      ],
      [{ reportedBy: "workload" }, { reportedBy: "silent" }, { reportedBy: "silent" }, { reportedBy: "settle" }],
    );
    assert.deepEqual(summary, {
      workloads: 6,
      ok: 2,
      failedTyped: 2,
      untyped: 1,
      hangs: 1,
      wrongOutput: 1,
      possibleLeakReported: 1,
      leftAlive: 4,
      leftAliveReportedByWorkload: 1,
      leftAliveReportedBySettle: 1,
      leftAliveSilent: 2,
      codes: { PROVIDER_UNAVAILABLE: 2, UNEXPECTED: 1 },
    });
  });

  test("a sandbox left alive counts as reported on its workload first, then by settle(), else silent", () => {
    assert.equal(reportedBy({ workloadReported: true, settleMentions: true }), "workload");
    assert.equal(reportedBy({ workloadReported: false, settleMentions: true }), "settle");
    assert.equal(reportedBy({ workloadReported: false, settleMentions: false }), "silent");
  });
});
