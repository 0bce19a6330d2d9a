// scripts/outcomes-reporter.mjs, which every test run writes its outcomes through: a failed test keeps
// its message, and a file that fails as a whole (all its tests passed) says why.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { runNestedNode } from "./nested-node-test.fixture.js";

const reporter = fileURLToPath(new URL("./outcomes-reporter.mjs", import.meta.url));

type Line = { name: string; outcome: string; error?: string };

/** Runs node:test on one test file of `source` through the reporter and parses what it wrote. */
function outcomesOf(source: string): Line[] {
  const directory = mkdtempSync(join(tmpdir(), "sandport-reporter-"));
  try {
    writeFileSync(join(directory, "probe.test.mjs"), source);
    const run = runNestedNode(["--test", `--test-reporter=${reporter}`, "probe.test.mjs"], { cwd: directory });
    return run.stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Line);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

test("a failed test keeps its message; a passing one has none", () => {
  const lines = outcomesOf(`import { test } from "node:test";
test("fine", () => {});
test("broken", () => { throw new Error("the reason it broke"); });
`);
  assert.deepEqual(
    lines.filter((line) => line.name === "fine" || line.name === "broken"),
    [
      { file: "probe.test.mjs", line: 2, column: 1, name: "fine", suite: false, outcome: "pass" },
      {
        file: "probe.test.mjs",
        line: 3,
        column: 1,
        name: "broken",
        suite: false,
        outcome: "fail",
        error: "Error: the reason it broke",
      },
    ],
  );
});

test("a file whose tests passed but whose process failed says how it ended, what rejected late, and its stderr", () => {
  const lines = outcomesOf(`import { test } from "node:test";
test("ends early", () => { setTimeout(() => Promise.reject(new Error("late rejection")), 20); });
test("waits", async () => {
  await new Promise((resolve) => setTimeout(resolve, 200));
  process.stderr.write("a line on stderr\\n");
});
`);
  assert.deepEqual(
    lines.map((line) => line.outcome),
    ["pass", "pass", "fail"],
  );
  const whole = lines[2];
  assert.match(whole?.name ?? "", /probe\.test\.mjs$/);
  assert.match(whole?.error ?? "", /^test failed \(exit code 1, signal none\)$/m);
  assert.match(whole?.error ?? "", /^diagnostic: .*"ends early".*late rejection/m);
  assert.match(whole?.error ?? "", /^ {2}a line on stderr$/m);
});

test("a late error that names no test is carried too, said to name no file", () => {
  const lines = outcomesOf(`import { after, test } from "node:test";
test("fine", () => {});
setTimeout(() => { throw new Error("thrown outside any test"); }, 20);
after(() => new Promise((resolve) => setTimeout(resolve, 200)));
`);
  const whole = lines.find((line) => line.outcome === "fail");
  assert.match(whole?.error ?? "", /^diagnostic naming no file .*thrown outside any test/m);
});

test("a file whose top-level await never settles is said to have stopped there (exit code 13)", () => {
  const lines = outcomesOf(`import { test } from "node:test";
await new Promise(() => {});
test("never reached", () => {});
`);
  assert.deepEqual(
    lines.map((line) => line.outcome),
    ["fail"],
  );
  assert.match(lines[0]?.error ?? "", /exit code 13, signal none\): a top-level await never settled/);
});
