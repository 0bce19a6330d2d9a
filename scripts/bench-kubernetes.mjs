#!/usr/bin/env node
// Benchmark of @sandport/kubernetes over the cluster emulator of @sandport/testkit, each figure a ratio against
// the local runtime on the same machine, measured in the same run in alternating rounds. Not a test: it prints
// figures and ratios. The emulator runs every pod as a sandbox of a LocalRuntime in this process, so the ratios
// are what the Kubernetes protocols (claims, watches, the router, sandboxd's gRPC) add over one machine, not the
// cost of a real cluster, where a cold start also schedules a pod and pulls its image.
//
//   pnpm build && node scripts/bench-kubernetes.mjs [--quick]
//
// 1. Launch to first exec (`true`), sequentially: a claim served from the warm pool, a claim with env (which
//    agent-sandbox always serves cold, from the pool's template), and LocalRuntime's launch.
// 2. 100 orchestrated workloads (launch, write a file, run a step, collect, destroy) under concurrency caps,
//    KubernetesRuntime (warm pool of 4) vs LocalRuntime.
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const repository = fileURLToPath(new URL("..", import.meta.url));
const load = (name, entry = "index") =>
  import(pathToFileURL(join(repository, "packages", name, "dist", `${entry}.js`)).href);
const { SandboxOrchestrator } = await load("core");
const { LocalRuntime } = await load("local");
const { KubernetesRuntime } = await load("kubernetes");
const { startKubernetesEmulator } = await load("testkit", "emulators/kubernetes");

const quick = process.argv.includes("--quick");
/** Launches per side in the latency comparison. */
const LAUNCHES = quick ? 6 : 20;
const WORKLOADS = quick ? 20 : 100;
const CAPS = quick ? [4] : [4, 16];
/** Rounds per concurrency cap, alternating which side goes first. */
const ROUNDS = quick ? 2 : 3;
const POOL = "bench-pool";
const POOL_SIZE = 4;

const scratch = await mkdtemp(join(tmpdir(), "sandport-bench-k8s-"));
// As root, isolated commands run as an unprivileged sandbox user, who must be able to pass through to the root.
await chmod(scratch, 0o711);
const cluster = await startKubernetesEmulator({
  warmPools: [{ name: POOL, template: "sandboxd", replicas: POOL_SIZE }],
});
const local = new LocalRuntime({ root: join(scratch, "local") });
const kubernetes = (extra = {}) =>
  new KubernetesRuntime({
    cluster: { server: cluster.apiServerUrl, token: cluster.token },
    warmPool: POOL,
    routerUrl: cluster.routerUrl,
    ...extra,
  });
const warm = kubernetes();
const cold = kubernetes({ launchEnv: "cold-start" });

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

function record(name, ours, baseline, unit) {
  console.log(
    `${name.padEnd(44)} kubernetes ${ours.toFixed(1).padStart(8)} ${unit.padEnd(4)} local ${baseline
      .toFixed(1)
      .padStart(8)} ${unit.padEnd(4)} ratio ${(ours / baseline).toFixed(2)}`,
  );
}

/** Milliseconds from the launch call to the end of the first exec; the destroy that follows is not timed. */
async function launchToFirstExec(runtime, spec) {
  const started = performance.now();
  const handle = await runtime.launch(spec);
  const result = await runtime.exec(handle, { argv: ["true"] });
  const elapsed = performance.now() - started;
  await runtime.destroy(handle);
  if (result.exitCode !== 0) throw new Error(`first exec exited ${result.exitCode}`);
  return elapsed;
}

/** Whether the claim's sandbox came from the pool, as the launch-type label says (to prove each side is what it claims). */
async function launchType(claimName) {
  const base = `${cluster.apiServerUrl}/apis/agents.x-k8s.io/v1beta1/namespaces/${cluster.namespace}/sandboxes`;
  const response = await fetch(base, { headers: { authorization: `Bearer ${cluster.token}` } });
  const list = await response.json();
  const adopted = list.items.find((item) =>
    (item.metadata.ownerReferences ?? []).some((owner) => owner.name === claimName),
  );
  return adopted?.metadata.labels?.["agents.x-k8s.io/launch-type"];
}

async function benchLaunch() {
  console.log(`\n# launch to first exec, ${LAUNCHES} sequential launches each (median; ratio = kubernetes / local)`);
  // The pool is refilled before every warm launch (outside the timing), so each one finds a ready sandbox.
  const sides = {
    local: () => launchToFirstExec(local, {}),
    warm: async () => {
      await cluster.settle();
      return launchToFirstExec(warm, {});
    },
    cold: () => launchToFirstExec(cold, { env: { BENCH: "cold" } }),
  };
  // A check that the two Kubernetes sides are warm and cold: one launch of each, kept until its type is read.
  for (const [runtime, spec, wanted] of [
    [warm, {}, "warm"],
    [cold, { env: { BENCH: "cold" } }, "cold"],
  ]) {
    await cluster.settle();
    const handle = await runtime.launch(spec);
    const type = await launchType(handle.id);
    await runtime.destroy(handle);
    if (type !== wanted) throw new Error(`a ${wanted} launch was served ${type}`);
  }
  for (const side of Object.values(sides)) await side();
  const times = { local: [], warm: [], cold: [] };
  const order = Object.keys(sides);
  for (let round = 0; round < LAUNCHES; round++) {
    // Rotate which side goes first, so that none always meets the machine warmer or cooler.
    for (let index = 0; index < order.length; index++) {
      const name = order[(round + index) % order.length];
      times[name].push(await sides[name]());
    }
  }
  record("warm pool (claim adopts a ready sandbox)", median(times.warm), median(times.local), "ms");
  record("cold template (claim with env)", median(times.cold), median(times.local), "ms");
}

async function pool(count, concurrency, task) {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await task(next++);
    }),
  );
  return performance.now() - started;
}

async function benchWorkloads() {
  console.log(
    `\n# ${WORKLOADS} orchestrated workloads under a concurrency cap (median wall time of ${ROUNDS} alternating rounds; ratio = kubernetes / local)`,
  );
  const input = "hello from the benchmark\n";
  const workload = {
    launch: {},
    files: [{ path: "input.txt", content: input }],
    steps: [{ argv: ["sh", "-c", "wc -c < input.txt > out.txt"] }],
    collect: ["out.txt"],
    teardown: "always",
  };
  const side = (runtime) => {
    const orchestrator = new SandboxOrchestrator(runtime);
    return async () => {
      const result = await orchestrator.run(workload);
      const out = new TextDecoder().decode(result.collected["out.txt"]);
      if (!result.ok || out.trim() !== String(input.length)) throw new Error(`workload failed: ${out}`);
    };
  };
  const sides = { local: side(local), kubernetes: side(warm) };
  await pool(4, 2, sides.local);
  await pool(4, 2, sides.kubernetes);
  for (const cap of CAPS) {
    const times = { local: [], kubernetes: [] };
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? ["local", "kubernetes"] : ["kubernetes", "local"];
      for (const name of order) {
        await cluster.settle();
        times[name].push(await pool(WORKLOADS, cap, sides[name]));
      }
    }
    const [ours, baseline] = [median(times.kubernetes), median(times.local)];
    record(`${WORKLOADS} workloads at concurrency ${cap}`, ours, baseline, "ms");
    const perSecond = (ms) => ((WORKLOADS / ms) * 1000).toFixed(1);
    console.log(`${"".padEnd(44)} (${perSecond(ours)} vs ${perSecond(baseline)} workloads/s)`);
  }
}

const began = performance.now();
console.log(
  `sandport kubernetes benchmark over the cluster emulator (not a cluster): node ${process.version}, ${cpus().length} cores, warm pool of ${POOL_SIZE}${quick ? ", --quick" : ""}`,
);
try {
  await benchLaunch();
  await benchWorkloads();
} finally {
  await cluster.settle();
  await cluster.stop();
  await rm(scratch, { recursive: true, force: true });
}
console.log(`\n${((performance.now() - began) / 1000).toFixed(0)} s`);
