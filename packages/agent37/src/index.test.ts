import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import type { Agent37Handle, Agent37RuntimeOptions, InstanceAuthHeader } from "./index.js";
import * as barrel from "./index.js";

/** Compile-time: the type names the barrel exports. */
export type BarrelTypes = [Agent37Handle, Agent37RuntimeOptions, InstanceAuthHeader];

const sourceRoot = fileURLToPath(new URL(".", import.meta.url));

function sources(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

test("the barrel exports the common provider names, and nothing else at run time", () => {
  assert.equal(typeof barrel.Agent37Runtime, "function");
  assert.equal(barrel.agent37Capabilities.verifiedCleanup, true);
  assert.deepEqual(Object.keys(barrel).sort(), ["Agent37Runtime", "DEFAULT_AGENT37_TIMEOUTS", "agent37Capabilities"]);
});

test("no source imports a package besides @sandport/core and node:, reads process.env, or talks to the agent plane", () => {
  for (const file of sources(sourceRoot)) {
    const name = relative(sourceRoot, file);
    const text = readFileSync(file, "utf8");
    for (const [, specifier] of text.matchAll(/from\s+"([^"]+)"/g)) {
      const allowed = /^(\.|node:|@sandport\/core(\/adapter)?$)/.test(specifier as string);
      assert.ok(allowed, `${name} imports ${specifier}`);
    }
    assert.ok(!/process\.env\b/.test(text), `${name} must not read or write process.env`);
    assert.ok(!text.includes("/v1/responses"), `${name} must not reach the agent plane`);
  }
});
