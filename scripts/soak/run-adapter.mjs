// One adapter's soak, run by scripts/soak.mjs in a process of its own (microsandbox's under Node 22):
//   node scripts/soak/run-adapter.mjs <adapter> <workloads> <seed> <hangMs>
// Runs the workloads one after another through a SandboxOrchestrator, each under the faults its
// plan draws, then settles the runtime and looks at what is still alive in the emulator. Prints
// its tally as one `SOAK-RESULT <json>` line (and a few samples of what went wrong).
import { loadBuilt } from "../round-trips/workload.mjs";
import { ADAPTERS } from "./adapters.mjs";
import { planFaults, reportedBy, rulesOf, seededRandom, tally } from "./plan.mjs";

const { SandboxOrchestrator, SandportError, LAUNCH_KEY_LABEL } = await loadBuilt("core");
const [adapter, workloadsArgument, seedArgument, hangArgument] = process.argv.slice(2);
const workloads = Number(workloadsArgument);
const seed = Number(seedArgument);
const hangMs = Number(hangArgument);

/** Deadlines of every call a workload makes; a latency fault outlasts each of them. */
const TIMEOUTS = { launchMs: 4_000, fileMs: 3_000, lookupMs: 3_000, destroyMs: 4_000, execGraceMs: 1_000 };
const STEP_TIMEOUT_MS = 2_000;
const LATENCY_MS = 5_500;
const LABEL = "soak-workload";

const FILES = Array.from({ length: 5 }, (_, index) => ({
  path: `src/f${index}.txt`,
  content: `file ${index} of the soak\n`,
}));
/** Each step and what it prints when it ran whole. */
const STEPS = [
  { name: "count", shell: "ls src | wc -l", expected: "5\n" },
  { name: "cat", argv: ["cat", "src/f0.txt"], expected: FILES[0].content },
  { name: "printf", argv: ["sh", "-c", "printf 'soak %s' ok"], expected: "soak ok" },
];
const COLLECT = ["src/f1.txt", "src/f4.txt"];

const workloadOf = (index) => ({
  launch: { labels: { [LABEL]: String(index) } },
  files: FILES,
  steps: STEPS.map(({ expected: _expected, ...step }) => ({ ...step, timeoutMs: STEP_TIMEOUT_MS })),
  collect: COLLECT,
});

/** True when `error` or a cause under it is not typed: not a SandportError, or UNEXPECTED. */
function untyped(error) {
  if (error === undefined) return false;
  return !SandportError.isInstance(error) || error.code === "UNEXPECTED";
}

/** True when the error (or a cause under it) says a sandbox may have leaked. */
function saysPossibleLeak(error) {
  for (let at = error, depth = 0; at && depth < 8; at = at.cause, depth++) {
    if (at.details?.possibleLeak === true) return true;
  }
  return false;
}

/** True when a step claims exit 0 with other output than its command prints, or a collected file differs. */
function wrongOutput(result) {
  if (!result) return false;
  const decode = (bytes) => new TextDecoder().decode(bytes);
  const stepWrong = result.steps.some((record) => {
    const step = STEPS.find((candidate) => candidate.name === record.name);
    return record.result.exitCode === 0 && record.result.stdout !== step.expected;
  });
  const collectedWrong = Object.entries(result.collected ?? {}).some(
    ([path, bytes]) => decode(bytes) !== FILES.find((file) => file.path === path).content,
  );
  return stepWrong || collectedWrong;
}

const { emulator, runtime, lookups } = await ADAPTERS[adapter]();
const orchestrator = new SandboxOrchestrator(runtime, {
  retry: { initialDelayMs: 20, maxDelayMs: 500, jitter: "none" },
  timeouts: TIMEOUTS,
});
const samples = [];
const sample = (what) => {
  if (samples.length < 12 && !samples.includes(what)) samples.push(what);
};
try {
  // A fault-free workload first: it proves the workload passes, and names the routes it uses.
  emulator.resetRequests();
  const warmUp = await orchestrator.run(workloadOf(-1));
  if (!warmUp.ok || wrongOutput(warmUp)) throw new Error(`the fault-free workload failed on ${adapter}`);
  const routes = [...new Set([...emulator.requests.map((request) => request.route), ...lookups])];

  const random = seededRandom(seed);
  const outcomes = [];
  const reported = new Set();
  const plans = [];
  for (let index = 0; index < workloads; index++) {
    const plan = planFaults(random, routes);
    for (const rule of rulesOf(plan, { latencyMs: LATENCY_MS })) emulator.injectFault(rule);
    const running = orchestrator.run(workloadOf(index)).then(
      (result) => ({ result }),
      (error) => ({ error }),
    );
    let timer;
    const settled = await Promise.race([
      running,
      new Promise((resolve) => {
        timer = setTimeout(() => resolve({ hung: true }), hangMs);
      }),
    ]);
    clearTimeout(timer);
    // A hung workload is waited for once more (so its faults do not spill into the next one), then left.
    const final = settled.hung
      ? await Promise.race([running, new Promise((resolve) => setTimeout(() => resolve({ hung: true }), hangMs))])
      : settled;
    emulator.clearFaults();
    const { result, error } = final;
    const outcome = {
      ok: result?.ok === true,
      code: error?.code ?? (error ? "not a SandportError" : undefined),
      untyped: untyped(error) || untyped(result?.teardown?.error) || untyped(error?.result?.teardown?.error),
      hung: settled.hung === true,
      wrongOutput: wrongOutput(result ?? error?.result),
      // On the workload: its error, a failed teardown, or a failed launch's unfinished cleanup on its result.
      possibleLeak:
        saysPossibleLeak(error) ||
        (result ?? error?.result)?.teardown?.outcome === "failed" ||
        ((result ?? error?.result)?.possibleLeaks?.length ?? 0) > 0,
    };
    if (outcome.possibleLeak) reported.add(String(index));
    const ended = error ? `${error.code ?? "untyped"} during ${error.stage ?? "?"}` : result?.ok ? "ok" : "not ok";
    const plain = plan.map((fault) => `${fault.kind}@${fault.route}#${fault.skip}`).join(", ") || "no faults";
    plans.push(`${plain} -> ${ended}${outcome.hung ? ", hung" : ""}`);
    if (outcome.untyped) sample(`untyped: ${error?.message ?? result?.teardown?.error?.message} [${plain}]`);
    if (outcome.hung) sample(`hung [${plain}]`);
    if (outcome.wrongOutput) sample(`wrong output [${plain}]`);
    outcomes.push(outcome);
  }

  const settleErrors = await runtime.settle();
  for (const error of settleErrors) if (untyped(error)) sample(`untyped from settle(): ${error.message}`);
  const alive = emulator.liveSandboxes().filter((sandbox) => !sandbox.foreign && sandbox.state !== "destroying");
  const leftAlive = [];
  for (const sandbox of alive) {
    // A provider that keeps labels elsewhere than its metadata (AgentCore: in a file in the session)
    // names them through the runtime.
    const workload =
      sandbox.metadata[LABEL] ?? (await runtime.getById(sandbox.id).catch(() => undefined))?.labels?.[LABEL];
    // The runtime may name a sandbox otherwise than the emulator does (microsandbox: by name, not id).
    const names = new Set([sandbox.id]);
    if (workload !== undefined) {
      for (const handle of await runtime.findByLabels({ [LABEL]: workload })) names.add(handle.id);
    }
    // A cleanup's failure names the sandbox, or only the launch key it searched for.
    const launchKey = sandbox.metadata[LAUNCH_KEY_LABEL];
    const settleMentions = settleErrors.some(
      (error) =>
        [...names].some((name) => error.message.includes(name) || error.details?.sandboxId === name) ||
        (launchKey !== undefined && error.details?.launchKey === launchKey),
    );
    const how = reportedBy({ workloadReported: workload !== undefined && reported.has(workload), settleMentions });
    const plan = workload === undefined ? "unlabelled" : `workload ${workload}: ${plans[Number(workload)]}`;
    sample(
      `left alive, reported ${how === "workload" ? "on its workload" : how === "settle" ? "by settle()" : "nowhere"}: ${sandbox.id} [${plan}]`,
    );
    leftAlive.push({ id: sandbox.id, workload, reportedBy: how });
  }
  console.log(`SOAK-RESULT ${JSON.stringify({ adapter, seed, ...tally(outcomes, leftAlive), samples })}`);
} finally {
  await emulator.stop();
}
// A hung workload may still hold timers: the tally is printed, so end here.
process.exit(0);
