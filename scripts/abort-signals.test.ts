// No source combines AbortSignal.any with AbortSignal.timeout: on Node 20 (the packages' floor) that
// composite is held only weakly, by its sources and the timeout's timer, and a garbage collection can
// take it before it fires when nothing else holds it (a fetch in flight does not). A request or a check
// bounded that way could outlive its deadline. deadlineSignal, from @sandport/core/adapter, is the way.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const packages = join(root, "packages");
/** The helper itself names both in its doc comment. */
const HELPER = "core/src/timing/deadline-signal.ts";

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === "node_modules" || entry.name === "dist") return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

test("no source file bounds a signal with AbortSignal.any over an AbortSignal.timeout (deadlineSignal does it)", () => {
  const files = sources(packages);
  assert.ok(files.length > 100, "the packages' sources were found");
  const combined = files
    .filter((file) => relative(packages, file) !== HELPER)
    .filter((file) => {
      const text = readFileSync(file, "utf8");
      return text.includes("AbortSignal.any(") && text.includes("AbortSignal.timeout(");
    })
    .map((file) => relative(root, file));
  assert.deepEqual(combined, []);
});
