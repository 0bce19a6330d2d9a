import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import type { E2BHandle, E2BRuntimeOptions } from "./index.js";
import * as barrel from "./index.js";
import { createE2BSdkLoader } from "./internal/sdk.js";

/** Compile-time: the type names every provider barrel exports. */
export type BarrelTypes = [E2BHandle, E2BRuntimeOptions];

const sourceRoot = fileURLToPath(new URL(".", import.meta.url));

function sources(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

test("the barrel exports the common provider names, and nothing else at run time", () => {
  assert.equal(typeof barrel.E2BRuntime, "function");
  assert.equal(barrel.e2bCapabilities.verifiedCleanup, true);
  assert.deepEqual(Object.keys(barrel).sort(), ["DEFAULT_E2B_TIMEOUTS", "E2BRuntime", "e2bCapabilities"]);
});

test("only internal/sdk.ts imports the e2b SDK at runtime; library code never touches process.env", () => {
  for (const file of sources(sourceRoot)) {
    const name = relative(sourceRoot, file);
    const text = readFileSync(file, "utf8");
    const runtimeImport = /(^|\n)\s*import\s+(?!type\b)[^;]*from\s+"e2b"|import\("e2b"\)|require\("e2b"\)/.test(text);
    if (name === join("internal", "sdk.ts")) assert.ok(runtimeImport, "sdk.ts loads the SDK");
    else assert.equal(runtimeImport, false, `${name} must not import e2b at runtime`);
    assert.ok(!/process\.env\b/.test(text), `${name} must not read or write process.env`);
  }
});

test("the SDK loader's range is the peer dependency range, and there is no src/testing", () => {
  const manifest = JSON.parse(readFileSync(join(sourceRoot, "..", "package.json"), "utf8"));
  const peerRange = manifest.peerDependencies.e2b;
  const loader = createE2BSdkLoader();
  assert.equal(loader.range, peerRange);
  assert.deepEqual(loader.packageNames, ["e2b"]);
  const text = readFileSync(join(sourceRoot, "internal", "sdk.ts"), "utf8");
  assert.ok(text.includes(`range: ${JSON.stringify(peerRange)}`));
  assert.ok(!sources(sourceRoot).some((file) => relative(sourceRoot, file).startsWith("testing")));
});
