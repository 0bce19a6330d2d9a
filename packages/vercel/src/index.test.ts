// The barrel's run-time surface, and the rule that no library file reads the environment
// (the package contract test checks the barrel's names, the lazy SDK import and its range).
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import type { VercelSandboxHandle, VercelSandboxRuntimeOptions } from "./index.js";
import * as barrel from "./index.js";

/** Compile-time: the type names every provider barrel exports. */
export type BarrelTypes = [VercelSandboxHandle, VercelSandboxRuntimeOptions];

test("at run time the barrel holds the runtime, its capabilities and its deadlines, nothing internal", () => {
  assert.deepEqual(Object.keys(barrel).sort(), [
    "DEFAULT_VERCEL_SANDBOX_TIMEOUTS",
    "VercelSandboxRuntime",
    "vercelSandboxCapabilities",
  ]);
  assert.equal(barrel.vercelSandboxCapabilities.verifiedCleanup, true);
});

test("no library file touches process.env: credentials and endpoints come from the options only", () => {
  const root = fileURLToPath(new URL(".", import.meta.url));
  const library = readdirSync(root, { recursive: true, encoding: "utf8" }).filter(
    (name) => name.endsWith(".ts") && !name.endsWith(".test.ts"),
  );
  assert.ok(library.length > 10, `found ${library.length} library files`);
  const offenders = library.filter((name) => /process\.env\b/.test(readFileSync(`${root}/${name}`, "utf8")));
  assert.deepEqual(offenders, []);
});
