// scripts/compare-outcomes.mjs, which .ci/run uses so that its run without bubblewrap cannot pass by skipping.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const script = fileURLToPath(new URL("./compare-outcomes.mjs", import.meta.url));
const NO_BWRAP = "bubblewrap is unusable here, so sandboxes are plain host directories (isolation: none): gone";

type Outcome = { outcome: "pass" | "skip"; reason?: string };

/** Runs the comparison on two lists of outcomes of tests t0, t1, … in one file. */
function compare(withBwrap: Outcome[], without: Outcome[]) {
  const directory = mkdtempSync(join(tmpdir(), "sandport-compare-"));
  try {
    const write = (name: string, outcomes: Outcome[]) => {
      const path = join(directory, name);
      const lines = outcomes.map((outcome, at) =>
        JSON.stringify({ file: "a.test.ts", line: at + 1, column: 1, name: `t${at}`, suite: false, ...outcome }),
      );
      writeFileSync(path, `${lines.join("\n")}\n`);
      return path;
    };
    return spawnSync(process.execPath, [script, write("with.jsonl", withBwrap), write("without.jsonl", without)], {
      encoding: "utf8",
    });
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

const passes = (count: number): Outcome[] => Array.from({ length: count }, () => ({ outcome: "pass" }));

test("a few more skips that name bubblewrap, the rest passing: accepted", () => {
  const run = compare(passes(20), [
    ...passes(18),
    { outcome: "skip", reason: NO_BWRAP },
    { outcome: "skip", reason: NO_BWRAP },
  ]);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /18 of the 20 tests that pass with it passed; 2 tests or suites more skipped/);
});

test("a skip without bubblewrap that gives another reason fails, naming the test", () => {
  const run = compare(passes(20), [...passes(19), { outcome: "skip", reason: "flaky today" }]);
  assert.equal(run.status, 1);
  assert.match(run.stderr, /a\.test\.ts:20:1 t19 \(flaky today\)/);
});

test("skips that also happen with bubblewrap are not counted against the run", () => {
  const skipped: Outcome = { outcome: "skip", reason: "needs root" };
  const run = compare([...passes(19), skipped], [...passes(19), skipped]);
  assert.equal(run.status, 0, run.stderr);
});

test("passing by skipping fails, whatever the reasons say", () => {
  const run = compare(
    passes(20),
    Array.from({ length: 20 }, () => ({ outcome: "skip", reason: NO_BWRAP }) as const),
  );
  assert.equal(run.status, 1);
  assert.match(run.stderr, /it passed by skipping/);
});
