// The README's demo must run and print only what a reader can use.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

test("the demo runs its workload on the local runtime and prints every capability as a value", () => {
  const demo = spawnSync(process.execPath, ["scripts/demo.mjs"], { cwd: root, encoding: "utf8", timeout: 120_000 });
  assert.equal(demo.status, 0, demo.stderr);
  assert.match(demo.stdout, /report\.json: (\d+)\/\1 cases passed/);
  assert.match(demo.stdout, /Capabilities of local/);
  assert.doesNotMatch(demo.stdout, /\[object Object\]/, "a row printed an object as text");
});
