// The test command runs node:test with --test-force-exit, which ends a file as soon as the tests
// declared so far have finished: a top-level `await` after a top-level `describe` lets the first
// suite finish alone, and every suite declared after the await is then never run, and never
// reported. This test finds that shape in every test file, and proves that the shape does drop
// suites, so that the guard is retired if node:test stops doing it.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

/** The 1-based line of the first top-level `await` after a top-level `describe(`, if any. */
function awaitAfterDescribe(source: string): number | undefined {
  let described = false;
  const lines = source.split("\n");
  for (const [index, line] of lines.entries()) {
    if (/^describe\(/.test(line)) described = true;
    else if (described && (/^await /.test(line) || /^(const|let|var) [^=]*= *await /.test(line))) return index + 1;
  }
  return undefined;
}

/** Every test file of the repository, outside node_modules and build output. */
function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === "node_modules" || entry.name === "dist" || entry.name.startsWith(".")) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return /\.test\.(ts|mjs)$/.test(entry.name) ? [path] : [];
  });
}

describe("test files declare every suite before their first top-level await", () => {
  test("the shape is found, and only that shape", () => {
    assert.equal(awaitAfterDescribe('describe("a", () => {});\nconst x = await f();\ndescribe("b", () => {});'), 2);
    assert.equal(awaitAfterDescribe('const x = await f();\ndescribe("a", () => {});'), undefined);
    assert.equal(awaitAfterDescribe('describe("a", async () => {\n  await f();\n});'), undefined);
    assert.equal(awaitAfterDescribe('test("a", () => {});\nawait f();'), undefined);
  });

  test("under --test-force-exit, that shape drops the suites declared after the await", () => {
    const directory = mkdtempSync(join(tmpdir(), "sandport-declarations-"));
    try {
      const file = join(directory, "shape.test.mjs");
      writeFileSync(
        file,
        [
          'import { describe, test } from "node:test";',
          'describe("first", () => { test("one", () => {}); });',
          "await new Promise((r) => setTimeout(r, 200));",
          'describe("second", () => { test("two", () => {}); });',
        ].join("\n"),
      );
      // Without NODE_TEST_CONTEXT, which makes a nested `node --test` report to this runner instead of stdout.
      const { NODE_TEST_CONTEXT: _, ...env } = process.env;
      const run = spawnSync(process.execPath, ["--test", "--test-force-exit", "--test-reporter=tap", file], {
        encoding: "utf8",
        env,
      });
      const count = Number(/^# tests (\d+)$/m.exec(run.stdout)?.[1]);
      assert.equal(count, 1, `node:test ran ${count} of 2 tests; if it runs both, this guard can go\n${run.stdout}`);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  test("no test file has it", () => {
    const offenders = testFiles(root).flatMap((file) => {
      const line = awaitAfterDescribe(readFileSync(file, "utf8"));
      return line === undefined ? [] : [`${relative(root, file)}:${line}`];
    });
    assert.deepEqual(offenders, [], "move these awaits above the first describe, or into a before() hook");
  });
});
