// The pure parts of the soak (scripts/soak.mjs): a seeded random source, the fault plan of one
// workload drawn from it, the emulator rules a plan arms, and the tally of what the workloads did.
// Nothing here touches a runtime or an emulator, so scripts/soak/plan.test.ts checks it directly.

/** Fault kinds the soak draws from, each an emulator `FaultSpec` shape (see the testkit harness). */
export const FAULT_KINDS = Object.freeze([
  "5xx",
  "429",
  "drop",
  "lost-response",
  "drop-mid-stream",
  "latency-past-deadline",
]);

/**
 * A seeded source of numbers in [0, 1): mulberry32, small and good enough to spread faults; the
 * same seed always gives the same sequence, so a soak run can be repeated exactly.
 *
 * @param {number} seed - an integer
 * @returns {() => number}
 */
export function seededRandom(seed) {
  if (!Number.isInteger(seed)) throw new RangeError(`the seed must be an integer, got ${seed}`);
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** An integer in [0, bound) from `random`. */
function below(random, bound) {
  return Math.floor(random() * bound);
}

/**
 * The faults of one workload: 0 to 3, each on one of the adapter's routes, of one kind, hitting the
 * `skip`-th later request on that route (0: the first).
 *
 * @param {() => number} random - from {@link seededRandom}
 * @param {readonly string[]} routes - the emulator route names the workload uses
 * @returns {{ route: string, kind: string, skip: number }[]}
 */
export function planFaults(random, routes) {
  if (routes.length === 0) throw new RangeError("a fault plan needs at least one route");
  const count = below(random, 4);
  return Array.from({ length: count }, () => ({
    route: routes[below(random, routes.length)],
    kind: FAULT_KINDS[below(random, FAULT_KINDS.length)],
    skip: below(random, 3),
  }));
}

/**
 * The emulator fault rules that arm `plan`, in order: `skip` pass-through rules (latency 0) before
 * each fault, so the fault lands on a later request of its route. Rules on one route are consumed
 * in the order they were added, so two faults on one route stay in plan order.
 *
 * @param {{ route: string, kind: string, skip: number }[]} plan
 * @param {{ latencyMs: number }} settings - the latency that outlasts every deadline of the workload
 * @returns {{ route: string, fault: object }[]}
 */
export function rulesOf(plan, { latencyMs }) {
  const rules = [];
  for (const { route, kind, skip } of plan) {
    for (let index = 0; index < skip; index++) rules.push({ route, fault: { kind: "latency", ms: 0 } });
    rules.push({ route, fault: faultOf(kind, latencyMs) });
  }
  return rules;
}

function faultOf(kind, latencyMs) {
  switch (kind) {
    case "5xx":
      return { kind: "status", status: 503 };
    case "429":
      return { kind: "status", status: 429, retryAfterSeconds: 1 };
    case "drop":
      return { kind: "drop" };
    case "lost-response":
      return { kind: "lost-response" };
    case "drop-mid-stream":
      return { kind: "drop-mid-stream", afterEvents: 1 };
    case "latency-past-deadline":
      return { kind: "latency", ms: latencyMs };
    default:
      throw new RangeError(`unknown fault kind ${kind}`);
  }
}

/**
 * What one workload did, as the soak records it.
 *
 * @typedef {object} WorkloadOutcome
 * @property {boolean} ok - the orchestrator resolved with `ok: true`
 * @property {string | undefined} code - the error's code when it rejected
 * @property {boolean} untyped - the error (or a teardown error) was not a SandportError, or was UNEXPECTED
 * @property {boolean} hung - it had not settled within the soak's bound
 * @property {boolean} wrongOutput - a step claimed exit 0 with output other than what the command printed, or a collected file differed
 * @property {boolean} possibleLeak - the workload's error said a sandbox may have leaked (or its teardown failed)
 */

/**
 * Sums the outcomes of one adapter's workloads and the sandboxes left alive at the end, each
 * sorted by how it was reported.
 *
 * @param {WorkloadOutcome[]} outcomes
 * @param {{ reportedBy: "workload" | "settle" | "silent" }[]} leftAlive
 */
export function tally(outcomes, leftAlive) {
  const codes = {};
  for (const outcome of outcomes) if (outcome.code) codes[outcome.code] = (codes[outcome.code] ?? 0) + 1;
  const count = (predicate) => outcomes.filter(predicate).length;
  const alive = (how) => leftAlive.filter((entry) => entry.reportedBy === how).length;
  return {
    workloads: outcomes.length,
    ok: count((outcome) => outcome.ok),
    failedTyped: count((outcome) => !outcome.ok && !outcome.untyped && !outcome.hung),
    untyped: count((outcome) => outcome.untyped),
    hangs: count((outcome) => outcome.hung),
    wrongOutput: count((outcome) => outcome.wrongOutput),
    possibleLeakReported: count((outcome) => outcome.possibleLeak),
    leftAlive: leftAlive.length,
    leftAliveReportedByWorkload: alive("workload"),
    leftAliveReportedBySettle: alive("settle"),
    leftAliveSilent: alive("silent"),
    codes,
  };
}

/**
 * How a sandbox left alive at the end was reported: on its workload (a `possibleLeak` error or a
 * failed teardown), only in what `runtime.settle()` returned, or not at all.
 *
 * @param {{ workloadReported: boolean, settleMentions: boolean }} evidence
 * @returns {"workload" | "settle" | "silent"}
 */
export function reportedBy({ workloadReported, settleMentions }) {
  if (workloadReported) return "workload";
  if (settleMentions) return "settle";
  return "silent";
}
