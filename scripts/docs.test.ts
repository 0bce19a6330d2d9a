// The documentation tells the truth: it speaks of the repository alone, and the error table matches the codes.
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { ERROR_CODES } from "sandport/core";

const root = fileURLToPath(new URL("..", import.meta.url));

/** Files of the repository that are public: sources, scripts, docs, manifests, CI. */
function publicFiles(dir = root): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (["node_modules", "dist", ".git", "evidence"].includes(name)) return [];
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return publicFiles(path);
    return /\.(ts|mjs|js|md|json|ya?ml)$|^run$/.test(name) && name !== "pnpm-lock.yaml" ? [path] : [];
  });
}

describe("documentation", () => {
  test("no public file points outside the repository or at issue numbers", () => {
    const outside = /\.\.\/shared|shared\/(DESIGN|research|reference)|DESIGN §|\bissue #?\d+|research\/[a-z-]+\.md/i;
    const offenders = publicFiles()
      .filter((path) => !path.endsWith("docs.test.ts"))
      .flatMap((path) =>
        readFileSync(path, "utf8")
          .split("\n")
          .flatMap((line, index) =>
            outside.test(line) ? [`${relative(root, path)}:${index + 1}: ${line.trim()}`] : [],
          ),
      );
    assert.deepEqual(offenders, []);
  });

  test("the README's error table documents exactly ERROR_CODES", () => {
    const readme = readFileSync(join(root, "README.md"), "utf8");
    const table = readme.slice(readme.indexOf("## Errors"), readme.indexOf("## Develop"));
    const documented = [...table.matchAll(/^\| `([A-Z_]+)`/gm)].map((match) => match[1]);
    assert.deepEqual([...documented].sort(), [...ERROR_CODES].sort());
  });

  test("every error code is thrown somewhere in the packages' sources", () => {
    const sources = publicFiles(join(root, "packages")).filter(
      (path) => path.endsWith(".ts") && !path.endsWith(".test.ts") && !path.includes("/testkit/"),
    );
    const text = sources
      .filter((path) => !path.endsWith("error-code.ts"))
      .map((path) => readFileSync(path, "utf8"))
      .join("\n");
    // Factories that produce a code, besides the literal.
    const producers: Record<string, RegExp> = {
      INVALID_REQUEST: /invalidRequest\(/,
      UNSUPPORTED: /unsupported\(/,
      NOT_FOUND: /sandboxNotFound\(/,
      FOREIGN_SANDBOX: /foreignSandbox\(/,
      DESTROY_UNVERIFIED: /destroyUnverified\(/,
      ABORTED: /abortError\(/,
      SDK_UNAVAILABLE: /createSdkLoader\(/,
    };
    const unused = ERROR_CODES.filter((code) => !text.includes(`"${code}"`) && !producers[code]?.test(text));
    assert.deepEqual(unused, [], "a code no source produces must not be documented");
  });
});
