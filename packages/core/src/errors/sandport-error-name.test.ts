// The class name users see, checked against the built package: a bundler may rename the class
// (`class _SandportError`), and Node prints the constructor's name for an uncaught error.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { inspect } from "node:util";

const dist = (file: string) => fileURLToPath(new URL(`../../dist/${file}`, import.meta.url));

describe("SandportError's name in the built package", () => {
  for (const [format, file] of [
    ["ESM", "index.js"],
    ["CJS", "index.cjs"],
  ] as const) {
    test(`${format}: the class, an inspected error and an uncaught one say SandportError`, async () => {
      const core = (
        format === "ESM"
          ? await import(dist(file))
          : (await import("node:module")).createRequire(import.meta.url)(dist(file))
      ) as typeof import("../index.js");
      const error = new core.SandportError({ code: "UNSUPPORTED", message: "no such thing" });
      assert.equal(core.SandportError.name, "SandportError");
      assert.match(inspect(error), /^SandportError: no such thing\n/);

      const load =
        format === "ESM" ? `await import(${JSON.stringify(dist(file))})` : `require(${JSON.stringify(dist(file))})`;
      const script = `const { SandportError } = ${load}; throw new SandportError({ code: "UNSUPPORTED", message: "no such thing" });`;
      const child = spawnSync(
        process.execPath,
        [format === "ESM" ? "--input-type=module" : "--input-type=commonjs", "-e", script],
        {
          encoding: "utf8",
        },
      );
      assert.notEqual(child.status, 0);
      assert.match(child.stderr, /^SandportError: no such thing$/m);
      assert.doesNotMatch(child.stderr, /_SandportError/);
    });
  }
});
