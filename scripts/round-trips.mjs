#!/usr/bin/env node
// Counts the provider round trips of the standard workload W for every adapter (or those named), each in
// a process of its own, and prints the markdown tables of docs/benchmarks.md § "Provider round trips":
//   pnpm build && node scripts/round-trips.mjs [--peers] [--large] [--timing [--baseline <ref>] [--rounds N]] [provider...]
// --peers   other libraries counted live where they can reach an emulator (ComputeSDK's E2B provider),
//           installed on demand into scripts/round-trips/peers/ with npm; elsewhere their external figures
// --large   a 64 MiB file written and read back through each adapter: bytes on the wire and wall time
// --timing  W's wall time against the emulator, this build against a baseline's (default ref: the tag
//           ci-green, else main), alternating, N rounds (default 5); the baseline is checked out and
//           built once into a temporary folder (a few minutes), then reused
// Not a test: each scripts/round-trips/<provider>.mjs prints its report (see workload.mjs).
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { defaultBaselineRef, prepareBaseline } from "./round-trips/baseline.mjs";
import { LARGE_FILE_HEADER, largeFileRow, REQUESTS_HEADER, TIMING_HEADER, timingRow } from "./round-trips/report.mjs";

const repository = fileURLToPath(new URL("..", import.meta.url));
const folder = join(repository, "scripts", "round-trips");
const helpers = new Set(["workload", "report", "large-file", "timing", "baseline", "wire-bytes", "peers"]);
const available = readdirSync(folder)
  .filter((name) => name.endsWith(".mjs"))
  .map((name) => name.slice(0, -".mjs".length))
  .filter((name) => !helpers.has(name));

const argv = process.argv.slice(2);
const flagValue = (flag) => (argv.includes(flag) ? argv[argv.indexOf(flag) + 1] : undefined);
const valued = new Set(["--baseline", "--rounds"]);
const wanted = argv.filter((arg, index) => !arg.startsWith("--") && !valued.has(argv[index - 1]));
const unknown = wanted.filter((name) => !available.includes(name));
if (unknown.length > 0) {
  console.error(`no round-trip script for ${unknown.join(", ")}; available: ${available.join(", ")}`);
  process.exit(2);
}
const providers = wanted.length > 0 ? wanted : available;
const flags = ["--peers", "--large", "--timing"].filter((flag) => argv.includes(flag));
if (argv.includes("--timing")) {
  const ref = flagValue("--baseline") ?? defaultBaselineRef(repository);
  const { folder: built, commit } = prepareBaseline(repository, ref, providers);
  flags.push("--baseline-dir", built, "--baseline-ref", `${ref} (${commit.slice(0, 12)})`);
  flags.push("--rounds", flagValue("--rounds") ?? "5");
}

const scratch = mkdtempSync(join(tmpdir(), "round-trips-"));
const results = join(scratch, "results.jsonl");
const started = Date.now();
const failed = [];
for (const name of providers) {
  const run = spawnSync(process.execPath, [join(folder, `${name}.mjs`), ...flags, "--results", results], {
    stdio: "inherit",
  });
  if (run.status !== 0) failed.push(name);
}
const measured = existsSync(results)
  ? readFileSync(results, "utf8")
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line))
  : [];
rmSync(scratch, { recursive: true, force: true });

const table = (title, header, rows) => {
  if (rows.length > 0) console.log([`${title}\n`, ...header, ...rows, ""].join("\n"));
};
console.log(`--- markdown for docs/benchmarks.md (${Math.round((Date.now() - started) / 1000)} s) ---\n`);
table(
  "Requests of W:",
  REQUESTS_HEADER,
  measured.map((result) => result.row),
);
table(
  "Large file:",
  LARGE_FILE_HEADER,
  measured.filter((result) => result.large).map(({ large }) => largeFileRow(large)),
);
table(
  "Wall time of W:",
  TIMING_HEADER,
  measured.filter((result) => result.timing).map(({ timing }) => timingRow(timing)),
);
if (failed.length > 0) {
  console.error(`failed: ${failed.join(", ")}`);
  process.exitCode = 1;
}
