// node:test ends a file's root test as soon as the tests declared so far have finished: a
// top-level `await` after a top-level `test` or `describe` lets what was declared first finish
// alone, the file's after() hooks (its emulator's stop, its sandboxes' cleanup) then run before
// anything declared after the await, and under --test-force-exit that is never run, nor reported.
// This test finds that shape in every test file (through the TypeScript parser, so an await inside
// an expression or a suite's options counts too), and proves both harms, so that the guard is
// retired if node:test stops doing them.
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { runNestedNode } from "./nested-node-test.fixture.js";

const root = fileURLToPath(new URL("..", import.meta.url));

/** node:test's declarations, and the repository's helpers that declare suites (`describeRuntimeConformance`, ...). */
const DECLARES = /^(test|it|describe|suite|describe[A-Z]\w*)$/;

/** Whether `node` reaches `predicate` outside any function or class body (code that runs as the module loads). */
function reaches(node: ts.Node, predicate: (node: ts.Node) => boolean): boolean {
  if (predicate(node)) return true;
  if (ts.isFunctionLike(node) || ts.isClassLike(node)) return false;
  return ts.forEachChild(node, (child) => reaches(child, predicate) || undefined) ?? false;
}

/** A call of a declaration: `test(...)`, `describe.skip(...)`, `describeRuntimeConformance(...)`. */
function isDeclaration(node: ts.Node): boolean {
  if (!ts.isCallExpression(node)) return false;
  const callee = ts.isPropertyAccessExpression(node.expression) ? node.expression.expression : node.expression;
  return ts.isIdentifier(callee) && DECLARES.test(callee.text);
}

function isAwait(node: ts.Node): boolean {
  return ts.isAwaitExpression(node) || (ts.isForOfStatement(node) && node.awaitModifier !== undefined);
}

/** The 1-based line of the first top-level `await` after a top-level declaration of a test or suite, if any. */
function awaitAfterDeclaration(source: string): number | undefined {
  const file = ts.createSourceFile("probe.ts", source, ts.ScriptTarget.Latest, true);
  let declared = false;
  for (const statement of file.statements) {
    if (declared && reaches(statement, isAwait)) {
      const { line } = file.getLineAndCharacterOfPosition(statement.getStart(file));
      return line + 1;
    }
    if (reaches(statement, isDeclaration)) declared = true;
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

describe("test files declare every test and suite before their first top-level await", () => {
  test("the shape is found, and only that shape", () => {
    assert.equal(awaitAfterDeclaration('describe("a", () => {});\nconst x = await f();\ndescribe("b", () => {});'), 2);
    assert.equal(awaitAfterDeclaration('test("a", () => {});\nawait f();\ntest("b", () => {});'), 2);
    assert.equal(awaitAfterDeclaration('test.skip("a", () => {});\nawait f();'), 2);
    assert.equal(awaitAfterDeclaration("describeRuntimeConformance(fixture);\nawait f();"), 2);
    assert.equal(awaitAfterDeclaration('describe("a", () => {});\nconst skip =\n  (await f()) ?? g();'), 2);
    assert.equal(awaitAfterDeclaration('test("a", () => {});\ndescribe("b", { skip: await f() }, () => {});'), 2);
    assert.equal(awaitAfterDeclaration("for (const x of xs) test(x, () => {});\nfor await (const y of ys) {}"), 2);
    assert.equal(awaitAfterDeclaration('const x = await f();\ndescribe("a", () => {});'), undefined);
    assert.equal(awaitAfterDeclaration('describe("a", async () => {\n  await f();\n});'), undefined);
    assert.equal(awaitAfterDeclaration('test("a", () => {});\nconst later = async () => await f();'), undefined);
    assert.equal(awaitAfterDeclaration('after(async () => {});\nawait f();\ntest("a", () => {});'), undefined);
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
      const run = runNestedNode(["--test", "--test-force-exit", "--test-reporter=tap", file]);
      const count = Number(/^# tests (\d+)$/m.exec(run.stdout)?.[1]);
      assert.equal(count, 1, `node:test ran ${count} of 2 tests; if it runs both, this guard can go\n${run.stdout}`);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  test("as the test command runs files, that shape runs the file's after() hooks before the suites declared after the await", () => {
    const directory = mkdtempSync(join(tmpdir(), "sandport-declarations-"));
    try {
      const file = join(directory, "order.test.mjs");
      writeFileSync(
        file,
        [
          'import { after, describe, test } from "node:test";',
          'after(() => console.log("MARK cleanup"));',
          'describe("first", () => { test("one", () => console.log("MARK first")); });',
          "await new Promise((r) => setTimeout(r, 200));",
          'describe("second", () => { test("two", () => console.log("MARK second")); });',
        ].join("\n"),
      );
      const preload = fileURLToPath(new URL("./end-lingering-test-file.mjs", import.meta.url));
      const run = runNestedNode(["--import", preload, "--test", "--test-reporter=tap", file]);
      // The file's output reaches the report as TAP comments: "# MARK first".
      const order = run.stdout.split("\n").flatMap((line) => /^# MARK (\w+)$/.exec(line)?.slice(1) ?? []);
      assert.deepEqual(
        order,
        ["first", "cleanup", "second"],
        `if the cleanup comes last, node:test waits for the module and this guard can go\n${run.stdout}`,
      );
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  test("no test file has it", () => {
    const offenders = testFiles(root).flatMap((file) => {
      const line = awaitAfterDeclaration(readFileSync(file, "utf8"));
      return line === undefined ? [] : [`${relative(root, file)}:${line}`];
    });
    assert.deepEqual(offenders, [], "move these awaits above the first test or describe, or into a before() hook");
  });
});
