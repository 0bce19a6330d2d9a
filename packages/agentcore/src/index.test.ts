import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import type { AgentCoreHandle, AgentCoreRuntimeOptions } from "./index.js";
import * as barrel from "./index.js";

/** Compile-time: the type names the barrel exports. */
export type BarrelTypes = [AgentCoreHandle, AgentCoreRuntimeOptions];

const sourceRoot = fileURLToPath(new URL(".", import.meta.url));

function sources(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

test("the barrel exports the common provider names, and nothing else at run time", () => {
  assert.equal(typeof barrel.AgentCoreRuntime, "function");
  assert.equal(barrel.agentCoreCapabilities.verifiedCleanup, true);
  assert.deepEqual(Object.keys(barrel).sort(), [
    "AgentCoreRuntime",
    "DEFAULT_AGENTCORE_TIMEOUTS",
    "agentCoreCapabilities",
  ]);
});

test("only internal/sdk.ts imports the AWS SDK at runtime; library code never touches process.env", () => {
  for (const file of sources(sourceRoot)) {
    const name = relative(sourceRoot, file);
    const text = readFileSync(file, "utf8");
    const runtimeImport =
      /(^|\n)\s*import\s+(?!type\b)[^;]*from\s+"@aws-sdk\/|import\("@aws-sdk\/|require\("@aws-sdk\//.test(text);
    if (name === join("internal", "sdk.ts")) assert.ok(runtimeImport, "sdk.ts loads the SDK");
    else assert.equal(runtimeImport, false, `${name} must not import the AWS SDK at runtime`);
    assert.ok(!/process\.env\b/.test(text), `${name} must not read or write process.env`);
  }
});
