// The package's boundaries, checked on its sources: the barrel, the one file
// that loads the SDK, the one file that touches process.env, no config file
// read, and the peer range that keeps modal@latest (an unrelated package) out.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import type { ModalHandle, ModalRuntimeOptions } from "./index.js";
import * as barrel from "./index.js";
import { createModalSdkLoader } from "./internal/sdk.js";

/** Compile-time: the type names every provider barrel exports. */
export type BarrelTypes = [ModalHandle, ModalRuntimeOptions];

const root = fileURLToPath(new URL(".", import.meta.url));
/** Library sources (tests excluded), relative to src/. */
const libraryFiles = (readdirSync(root, { recursive: true }) as string[]).filter(
  (name) => name.endsWith(".ts") && !name.endsWith(".test.ts"),
);
const text = (name: string) => readFileSync(join(root, name), "utf8");

test("the barrel holds the runtime, its capabilities and its default timeouts, and nothing else at run time", () => {
  assert.deepEqual(Object.keys(barrel).sort(), ["DEFAULT_MODAL_TIMEOUTS", "ModalRuntime", "modalCapabilities"]);
  assert.equal(barrel.modalCapabilities.lifecycle, "unsupported");
});

test("one file loads the SDK, one file touches process.env, none reads a file", () => {
  const loads = libraryFiles.filter((name) => /import\("modal"\)|from "modal"|require\("modal"\)/.test(text(name)));
  assert.deepEqual(loads, [join("internal", "sdk.ts")]);
  const env = libraryFiles.filter((name) => /process\.env\b/.test(text(name)));
  assert.deepEqual(env, [join("internal", "pinned-client.ts")], "only the pinned client, for its constructor");
  const files = libraryFiles.filter((name) => /homedir\(|from "(node:)?fs(\/promises)?"/.test(text(name)));
  assert.deepEqual(files, [], "no config file is looked for");
  assert.ok(!libraryFiles.some((name) => name.startsWith("testing")), "no src/testing");
});

test("the peer range is the Modal Labs SDK's, the loader's range is the peer range, the dev copy is pinned", () => {
  const manifest = JSON.parse(readFileSync(join(root, "..", "package.json"), "utf8"));
  assert.equal(manifest.peerDependencies.modal, ">=0.11 <1", "modal@latest (1.x) is an unrelated package");
  assert.equal(manifest.devDependencies.modal, "0.11.1");
  const loader = createModalSdkLoader();
  assert.deepEqual([loader.range, loader.packageNames], [manifest.peerDependencies.modal, ["modal"]]);
});
