// `pnpm demo` skips the build only when every dist/ is newer than everything its build reads.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, test } from "node:test";
import { stalePackages, whyStale } from "./build-freshness.mjs";

const temporary: string[] = [];
afterEach(() => {
  for (const dir of temporary.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const SOURCES = 1_000_000; // seconds since the epoch: when the inputs were written
const BUILT = 2_000_000; // when dist/ was written, later

/** Writes `files` (path → content) under `root`, each with the given modification time (seconds). */
function write(root: string, files: Record<string, string>, mtime: number): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
    utimesSync(join(root, path), mtime, mtime);
  }
}

/** A repository with one built package `a`, every input older than its dist/. */
function builtRepository(): string {
  const root = mkdtempSync(join(tmpdir(), "sandport-freshness-"));
  temporary.push(root);
  const manifest = {
    name: "@sandport/a",
    exports: { ".": { import: "./dist/index.js", require: "./dist/index.cjs" } },
  };
  write(
    root,
    {
      "tsup.base.ts": "",
      "tsconfig.base.json": "{}",
      "packages/a/package.json": JSON.stringify(manifest),
      "packages/a/tsup.config.ts": "",
      "packages/a/tsconfig.json": "{}",
      "packages/a/src/index.ts": "export {};",
      "packages/a/src/internal/sdk.ts": "export {};",
      "packages/a/src/index.test.ts": "",
      "packages/a/README.md": "# a",
    },
    SOURCES,
  );
  write(root, { "packages/a/dist/index.js": "", "packages/a/dist/index.cjs": "", "packages/a/dist/x.d.ts": "" }, BUILT);
  return root;
}

describe("build freshness", () => {
  test("a dist/ newer than every input is current", () => {
    assert.deepEqual(stalePackages(builtRepository()), []);
  });

  for (const input of ["src/index.ts", "src/internal/sdk.ts", "package.json", "tsup.config.ts", "tsconfig.json"]) {
    test(`a change to ${input} after the build makes the package stale`, () => {
      const root = builtRepository();
      utimesSync(join(root, "packages/a", input), BUILT + 1, BUILT + 1);
      assert.deepEqual(stalePackages(root), [
        { dir: "a", name: "@sandport/a", reason: `${input} changed after the build` },
      ]);
    });
  }

  test("a change to the shared tsup or TypeScript configuration makes every package stale", () => {
    for (const shared of ["tsup.base.ts", "tsconfig.base.json"]) {
      const root = builtRepository();
      utimesSync(join(root, shared), BUILT + 1, BUILT + 1);
      assert.equal(stalePackages(root).length, 1, shared);
    }
  });

  test("an input newer than only some of dist/ (a build cut short) is stale", () => {
    const root = builtRepository();
    utimesSync(join(root, "packages/a/dist/x.d.ts"), SOURCES - 1, SOURCES - 1);
    assert.match(whyStale(join(root, "packages/a")) ?? "", /changed after the build/);
  });

  test("tests and READMEs are not inputs of the build", () => {
    const root = builtRepository();
    utimesSync(join(root, "packages/a/src/index.test.ts"), BUILT + 1, BUILT + 1);
    utimesSync(join(root, "packages/a/README.md"), BUILT + 1, BUILT + 1);
    assert.deepEqual(stalePackages(root), []);
  });

  test("a package without dist/, or missing a file its package.json names, is stale", () => {
    const root = builtRepository();
    rmSync(join(root, "packages/a/dist/index.cjs"));
    assert.equal(whyStale(join(root, "packages/a")), "dist/index.cjs is missing");
    rmSync(join(root, "packages/a/dist"), { recursive: true });
    assert.equal(whyStale(join(root, "packages/a")), "not built");
  });
});
