#!/usr/bin/env node
// Usage: node scripts/compare-outcomes.mjs WITH.jsonl WITHOUT.jsonl
// Compares the outcomes of a test run with bubblewrap (WITH) to one with it hidden (WITHOUT), as
// written by scripts/outcomes-reporter.mjs. The run without must not pass by skipping: every test or
// suite it skips that the run with bubblewrap did not skip must give a reason naming bubblewrap or
// namespaces, and it must still pass at least MINIMUM_SHARE of the tests that passed with bubblewrap.
import { readFileSync } from "node:fs";

// Measured: without bubblewrap, even as an unprivileged user (whose root-only tests skip too), 1 773
// of the 1 939 tests that pass with it still pass (91%); skipping all that needs a sandbox is far below.
const MINIMUM_SHARE = 0.85;
const SANDBOX_REASON = /bubblewrap|namespaces/i;

const read = (path) =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));
const key = (outcome) => `${outcome.file}:${outcome.line}:${outcome.column} ${outcome.name}`;

const [withPath, withoutPath] = process.argv.slice(2);
if (!withPath || !withoutPath) {
  console.error("usage: compare-outcomes.mjs WITH.jsonl WITHOUT.jsonl");
  process.exit(2);
}
const withBwrap = read(withPath);
const without = read(withoutPath);
const skippedWith = new Set(withBwrap.filter((outcome) => outcome.outcome === "skip").map(key));
const passes = (outcomes) => outcomes.filter((outcome) => !outcome.suite && outcome.outcome === "pass").length;

const newSkips = without.filter((outcome) => outcome.outcome === "skip" && !skippedWith.has(key(outcome)));
const unexplained = newSkips.filter((outcome) => !SANDBOX_REASON.test(outcome.reason ?? ""));
const passedWith = passes(withBwrap);
const passedWithout = passes(without);
console.log(
  `without bubblewrap: ${passedWithout} of the ${passedWith} tests that pass with it passed; ` +
    `${newSkips.length} tests or suites more skipped, each saying why`,
);
let failed = false;
for (const outcome of unexplained) {
  console.error(`skipped without naming bubblewrap or namespaces: ${key(outcome)} (${outcome.reason ?? "no reason"})`);
  failed = true;
}
if (passedWith === 0 || passedWithout < MINIMUM_SHARE * passedWith) {
  console.error(`without bubblewrap, fewer than ${MINIMUM_SHARE * 100}% of the tests passed: it passed by skipping`);
  failed = true;
}
process.exit(failed ? 1 : 0);
