import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { expectCode } from "@sandport/testkit/assertions";
import type { DaytonaHandle, DaytonaRuntimeOptions, DaytonaSandboxDetails } from "./index.js";
import * as barrel from "./index.js";
import { createDaytonaSdkLoader } from "./internal/sdk.js";

/** Compile-time: the type names every provider barrel exports, and this one's details type. */
export type BarrelTypes = [DaytonaHandle, DaytonaRuntimeOptions, DaytonaSandboxDetails];

const sourceRoot = fileURLToPath(new URL(".", import.meta.url));
const SDK_IMPORT =
  /(^|\n)\s*import\s+(?!type\b)[^;]*from\s+"@daytona(io)?\/sdk"|import\("@daytona(io)?\/sdk"\)|require\("@daytona(io)?\/sdk"\)/;

function sources(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

test("the barrel exports the common provider names, and nothing else at run time", () => {
  assert.equal(typeof barrel.DaytonaRuntime, "function");
  assert.equal(barrel.daytonaCapabilities.verifiedCleanup, true);
  assert.deepEqual(Object.keys(barrel).sort(), ["DEFAULT_DAYTONA_TIMEOUTS", "DaytonaRuntime", "daytonaCapabilities"]);
});

test("only internal/sdk.ts imports the SDK at runtime; library code never touches process.env", () => {
  for (const file of sources(sourceRoot)) {
    const name = relative(sourceRoot, file);
    const text = readFileSync(file, "utf8");
    if (name === join("internal", "sdk.ts")) assert.ok(SDK_IMPORT.test(text), "sdk.ts loads the SDK");
    else assert.equal(SDK_IMPORT.test(text), false, `${name} must not import the SDK at runtime`);
    assert.ok(!/process\.env\b/.test(text), `${name} must not read or write process.env`);
  }
});

test("the loader tries @daytona/sdk, then @daytonaio/sdk, in the peer range; there is no src/testing", () => {
  const manifest = JSON.parse(readFileSync(join(sourceRoot, "..", "package.json"), "utf8"));
  const loader = createDaytonaSdkLoader();
  assert.deepEqual(loader.packageNames, ["@daytona/sdk", "@daytonaio/sdk"]);
  for (const name of loader.packageNames) assert.equal(manifest.peerDependencies[name], loader.range);
  assert.ok(!sources(sourceRoot).some((file) => relative(sourceRoot, file).startsWith("testing")));
});

test("an SDK that is not Daytona's is SDK_UNAVAILABLE naming both packages and the one to install", async () => {
  const runtime = new barrel.DaytonaRuntime({ apiKey: "k", sdk: async () => ({}) as never });
  const error = await expectCode(runtime.getById("sbx-1"), "SDK_UNAVAILABLE");
  assert.match(error.message, /"@daytona\/sdk" or "@daytonaio\/sdk" \(>=0\.180\.0 <1\)/);
  assert.match(error.message, /lacks Daytona, Image\.base/);
  assert.match(error.message, /npm install @daytona\/sdk@">=0\.180\.0 <1"/);
  const missing = new barrel.DaytonaRuntime({
    apiKey: "k",
    sdk: () => Promise.reject(new Error("Cannot find package '@daytona/sdk'")),
  });
  await expectCode(missing.findByLabels({}), "SDK_UNAVAILABLE");
});

test("without an injected SDK the loader finds the installed @daytona/sdk first", async () => {
  const sdk = await createDaytonaSdkLoader()();
  const renamed = await import("@daytona/sdk");
  assert.equal(sdk.Daytona, renamed.Daytona);
});
