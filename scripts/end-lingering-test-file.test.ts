// The preload that scripts/run-tests.mjs runs every test file with: a file that something keeps
// alive is ended after its grace, and no file's results are lost, however many it has. Each case
// runs a nested `node --test` as the runner does.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { runNestedNode } from "./nested-node-test.fixture.js";

const preload = fileURLToPath(new URL("./end-lingering-test-file.mjs", import.meta.url));
const outcomesReporter = fileURLToPath(new URL("./outcomes-reporter.mjs", import.meta.url));
const directory = mkdtempSync(join(tmpdir(), "sandport-lingering-"));
after(() => rmSync(directory, { recursive: true, force: true }));

/** Runs `files` as run-tests.mjs does, with a grace of `lingerMs`: its outcomes, exit code and time. */
function runWithPreload(files: string[], lingerMs: number) {
  const outcomes = join(directory, "outcomes.jsonl");
  const started = performance.now();
  const run = runNestedNode(
    [
      "--import",
      preload,
      "--test",
      "--test-reporter=tap",
      "--test-reporter-destination=stdout",
      `--test-reporter=${outcomesReporter}`,
      `--test-reporter-destination=${outcomes}`,
      "--test-concurrency=3",
      ...files,
    ],
    { env: { SANDPORT_TEST_LINGER_MS: String(lingerMs) }, timeoutMs: 60_000 },
  );
  const lines = readFileSync(outcomes, "utf8").split("\n").filter(Boolean);
  return { run, outcomes: lines.map((line) => JSON.parse(line)), ms: performance.now() - started };
}

describe("end-lingering-test-file", () => {
  test("a file that leaves a server listening is ended after the grace, its results kept, and says why", () => {
    const file = join(directory, "lingering.test.mjs");
    writeFileSync(
      file,
      [
        'import { test } from "node:test";',
        'import { createServer } from "node:net";',
        'test("leaves a server listening", () => { createServer().listen(0, "127.0.0.1"); });',
        'test("fails", () => { throw new Error("kept"); });',
      ].join("\n"),
    );
    const { run, outcomes, ms } = runWithPreload([file], 1_000);
    assert.equal(run.signal, null, "ended by the preload, not by this test's timeout");
    assert.equal(run.status, 1, "the failed test's exit code is kept");
    assert.ok(ms < 30_000, `${ms} ms`);
    assert.deepEqual(
      outcomes.map((outcome) => [outcome.name, outcome.outcome]),
      [
        ["leaves a server listening", "pass"],
        ["fails", "fail"],
      ],
    );
    assert.match(run.stdout, /still ran 1000 ms after its tests \(alive: [^)]*TCPServerWrap/);
  });

  test("every result of files with many tests reaches the runner, run after run", () => {
    const files = [1, 2, 3].map((index) => {
      const file = join(directory, `many-${index}.test.mjs`);
      const tests = Array.from({ length: 300 }, (_, n) => `test("t${n}", () => {});`);
      writeFileSync(file, ['import { test } from "node:test";', ...tests].join("\n"));
      return file;
    });
    for (let round = 0; round < 4; round++) {
      const { run, outcomes } = runWithPreload(files, 30_000);
      assert.equal(run.status, 0, run.stderr);
      assert.equal(outcomes.length, 900, `round ${round}: ${outcomes.length} of 900 results arrived`);
    }
  });
});
