import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import type { ModalHandle, ModalRuntimeOptions } from "./index.js";
import * as barrel from "./index.js";
import { createModalSdkLoader } from "./internal/sdk.js";

/** Compile-time: the type names every provider barrel exports. */
export type BarrelTypes = [ModalHandle, ModalRuntimeOptions];

const sourceRoot = fileURLToPath(new URL(".", import.meta.url));

function sources(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

test("the barrel exports the common provider names, and nothing else at run time", () => {
  assert.equal(typeof barrel.ModalRuntime, "function");
  assert.equal(barrel.modalCapabilities.verifiedCleanup, true);
  assert.deepEqual(Object.keys(barrel).sort(), ["DEFAULT_MODAL_TIMEOUTS", "ModalRuntime", "modalCapabilities"]);
});

test("only internal/sdk.ts imports the SDK at runtime; only internal/pinned-client.ts touches process.env", () => {
  for (const file of sources(sourceRoot)) {
    const name = relative(sourceRoot, file);
    const text = readFileSync(file, "utf8");
    const runtimeImport = /(^|\n)\s*import\s+(?!type\b)[^;]*from\s+"modal"|import\("modal"\)|require\("modal"\)/.test(
      text,
    );
    if (name === join("internal", "sdk.ts")) assert.ok(runtimeImport, "sdk.ts loads the SDK");
    else assert.equal(runtimeImport, false, `${name} must not import modal at runtime`);
    const touchesEnv = /process\.env\b/.test(text);
    if (name === join("internal", "pinned-client.ts")) assert.ok(touchesEnv, "pinned-client.ts pins the environment");
    else assert.equal(touchesEnv, false, `${name} must not read or write process.env`);
    assert.ok(
      !/homedir\(|from "(node:)?fs(\/promises)?"/.test(text),
      `${name} must not read files (a config file, say)`,
    );
  }
});

test("the SDK loader's range is the peer dependency range, the devDependency is pinned, and there is no src/testing", () => {
  const manifest = JSON.parse(readFileSync(join(sourceRoot, "..", "package.json"), "utf8"));
  const peerRange = manifest.peerDependencies.modal;
  assert.equal(peerRange, ">=0.11 <1", "the Modal Labs SDK; modal@latest (1.x) is an unrelated package");
  assert.equal(manifest.devDependencies.modal, "0.11.1");
  const loader = createModalSdkLoader();
  assert.equal(loader.range, peerRange);
  assert.deepEqual(loader.packageNames, ["modal"]);
  const text = readFileSync(join(sourceRoot, "internal", "sdk.ts"), "utf8");
  assert.ok(text.includes(`range: ${JSON.stringify(peerRange)}`));
  assert.ok(!sources(sourceRoot).some((file) => relative(sourceRoot, file).startsWith("testing")));
});
