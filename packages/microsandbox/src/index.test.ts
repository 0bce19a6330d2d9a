// The barrel: the names every provider exports (importing it on Node 20 loads
// no SDK: this file runs there), and the SDK imported from internal/sdk.ts
// alone, with library code never touching process.env.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import type { MicrosandboxHandle, MicrosandboxRuntimeOptions } from "./index.js";
import * as barrel from "./index.js";

/** Compile-time: the type names every provider barrel exports. */
export type BarrelTypes = [MicrosandboxHandle, MicrosandboxRuntimeOptions];

const sourceRoot = fileURLToPath(new URL(".", import.meta.url));

function librarySources(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return librarySources(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

test("the barrel exports the common provider names at run time, and nothing else", () => {
  assert.deepEqual(Object.keys(barrel).sort(), [
    "DEFAULT_MICROSANDBOX_TIMEOUTS",
    "MicrosandboxRuntime",
    "microsandboxCapabilities",
  ]);
  assert.equal(barrel.microsandboxCapabilities.verifiedCleanup, true);
});

test("only internal/sdk.ts imports the SDK, dynamically; no library file reads process.env", () => {
  for (const file of librarySources(sourceRoot)) {
    const name = relative(sourceRoot, file);
    const text = readFileSync(file, "utf8");
    const imports = /import\("microsandbox(\/native)?"\)|from\s+"microsandbox(\/native)?"|require\("microsandbox/.test(
      text,
    );
    if (name === join("internal", "sdk.ts")) assert.ok(imports, "sdk.ts loads the SDK");
    else assert.equal(imports, false, `${name} must not import microsandbox`);
    assert.ok(!/process\.env\b/.test(text), `${name} must not read or write process.env`);
  }
});
