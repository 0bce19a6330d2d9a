// The barrel's run-time surface, and the rule that no library file reads the environment
// (the package contract test checks the barrel's names, the lazy SDK import and its range).
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import type {
  VercelHandle,
  VercelRuntimeOptions,
  VercelSandboxHandle,
  VercelSandboxRuntime,
  VercelSandboxRuntimeOptions,
} from "./index.js";
import * as barrel from "./index.js";

/** Compile-time: the type names every provider barrel exports. */
export type BarrelTypes = [VercelHandle, VercelRuntimeOptions];

test("at run time the barrel holds the runtime, its capabilities and its deadlines, nothing internal", () => {
  assert.deepEqual(Object.keys(barrel).sort(), [
    "DEFAULT_VERCEL_SANDBOX_TIMEOUTS",
    "DEFAULT_VERCEL_TIMEOUTS",
    "VercelRuntime",
    "VercelSandboxRuntime",
    "vercelCapabilities",
    "vercelSandboxCapabilities",
  ]);
  assert.equal(barrel.vercelCapabilities.verifiedCleanup, true);
});

test("the names before the rename to <P>Runtime are aliases of the new ones", () => {
  assert.equal(barrel.VercelSandboxRuntime, barrel.VercelRuntime);
  assert.equal(barrel.vercelSandboxCapabilities, barrel.vercelCapabilities);
  assert.equal(barrel.DEFAULT_VERCEL_SANDBOX_TIMEOUTS, barrel.DEFAULT_VERCEL_TIMEOUTS);
  const old: VercelSandboxRuntimeOptions = { token: "t", teamId: "team", projectId: "prj" };
  const runtime: VercelSandboxRuntime = new barrel.VercelSandboxRuntime(old);
  assert.ok(runtime instanceof barrel.VercelRuntime);
  const handle: VercelSandboxHandle = { id: "x", provider: "vercel", labels: {} };
  assert.equal(handle.provider, "vercel");
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
