// Options: defaults, refusals, nothing from the environment, no I/O before
// the first call, and what a missing or wrong SDK turns into.
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectCode } from "@sandport/testkit/assertions";
import { startFreestyleEmulator } from "@sandport/testkit/emulators/freestyle";
import { emulatorOptions } from "../test/emulated.js";
import { FreestyleRuntime } from "./freestyle-runtime.js";
import type { FreestyleSdkModule } from "./internal/sdk-types.js";
import { DEFAULT_FREESTYLE_TIMEOUTS, fromHome, resolveOptions } from "./options.js";

test("apiKey is required and never taken from FREESTYLE_API_KEY", async () => {
  const saved = process.env.FREESTYLE_API_KEY;
  process.env.FREESTYLE_API_KEY = "fs_from_the_environment";
  try {
    const missing = await expectCode(() => new FreestyleRuntime({} as never), "INVALID_REQUEST");
    assert.equal(missing.details.field, "apiKey");
    await expectCode(() => new FreestyleRuntime({ apiKey: "  " }), "INVALID_REQUEST");
  } finally {
    if (saved === undefined) delete process.env.FREESTYLE_API_KEY;
    else process.env.FREESTYLE_API_KEY = saved;
  }
});

test("defaults: the public API, root in /root, deny-all network, explicit lifetime, budgets and deadlines", () => {
  const options = resolveOptions({ apiKey: "k" });
  assert.equal(options.baseUrl, "https://api.freestyle.sh");
  assert.deepEqual(
    [options.linuxUser, options.homeDirectory, options.workspaceRoot, options.stateDirectory],
    ["root", "/root", "/root/workspace", "/root/.sandport"],
  );
  assert.deepEqual([options.snapshot, options.namePrefix, options.owner], ["freestyle/ubuntu", "sandport", "sandport"]);
  assert.deepEqual([options.lifetimeMs, options.runBudgetMs, options.maxOutputBytes], [3_600_000, 300_000, 4 << 20]);
  assert.equal(options.network, false);
  assert.deepEqual(options.persistence, { autoDeleteSeconds: -1, idleTimeoutSeconds: -1, maxRunSeconds: -1 });
  assert.deepEqual([options.listPageSize, options.orphanCleanupMs], [100, 120_000]);
  assert.deepEqual(options.timeouts, DEFAULT_FREESTYLE_TIMEOUTS);
  const tuned = resolveOptions({
    apiKey: "k",
    homeDirectory: "/home/dev",
    persistence: { autoDeleteSeconds: 0, idleTimeoutSeconds: 600, maxRunSeconds: null },
    timeouts: { fileMs: 5_000 },
  });
  assert.deepEqual([tuned.workspaceRoot, tuned.stateDirectory], ["/home/dev/workspace", "/home/dev/.sandport"]);
  assert.equal(resolveOptions({ apiKey: "k", linuxUser: "dev" }).homeDirectory, "/home/dev");
  assert.deepEqual(tuned.persistence, { autoDeleteSeconds: 0, idleTimeoutSeconds: 600, maxRunSeconds: -1 });
  assert.deepEqual(tuned.timeouts, { ...DEFAULT_FREESTYLE_TIMEOUTS, fileMs: 5_000 });
});

test("paths inside commands are relative to the home directory, and never start with a dash", () => {
  const options = resolveOptions({ apiKey: "k" });
  assert.equal(fromHome(options, "/root"), ".");
  assert.equal(fromHome(options, "/root/workspace/-x"), "./workspace/-x");
  assert.equal(fromHome(options, "/srv/data"), "../srv/data");
});

test("invalid options are refused with INVALID_REQUEST naming the field", async () => {
  const bad: [string, Record<string, unknown>][] = [
    ["baseUrl", { baseUrl: "not a url" }],
    ["baseUrl", { baseUrl: "ftp://x" }],
    ["fetch", { fetch: "global" }],
    ["linuxUser", { linuxUser: "Root User" }],
    ["homeDirectory", { homeDirectory: "relative" }],
    ["workspaceRoot", { workspaceRoot: "/a/../b" }],
    ["workspaceRoot", { workspaceRoot: "/" }],
    ["stateDirectory", { stateDirectory: "/root/workspace/.state" }],
    ["stateDirectory", { stateDirectory: "/root", workspaceRoot: "/root/workspace" }],
    ["namePrefix", { namePrefix: "Sandport" }],
    ["namePrefix", { namePrefix: "a--b" }],
    ["namePrefix", { namePrefix: "-a" }],
    ["namePrefix", { namePrefix: "x".repeat(31) }],
    ["snapshot", { snapshot: "" }],
    ["lifetimeMs", { lifetimeMs: 0 }],
    ["runBudgetMs", { runBudgetMs: 86_400_001 }],
    ["maxOutputBytes", { maxOutputBytes: -1 }],
    ["network", { network: "yes" }],
    ["persistence", { persistence: "forever" }],
    ["persistence.autoDeleteSeconds", { persistence: { autoDeleteSeconds: -1 } }],
    ["persistence.idleTimeoutSeconds", { persistence: { idleTimeoutSeconds: 1.5 } }],
    ["listPageSize", { listPageSize: 0 }],
    ["listPageSize", { listPageSize: 1001 }],
    ["orphanCleanupMs", { orphanCleanupMs: 0 }],
    ["timeouts.nonsense", { timeouts: { nonsense: 5 } }],
    ["owner", { owner: "has space" }],
    ["owner", { owner: "x".repeat(64) }],
    ["onBackgroundError", { onBackgroundError: "log" }],
  ];
  for (const [field, extra] of bad) {
    const error = await expectCode(() => new FreestyleRuntime({ apiKey: "k", ...extra }), "INVALID_REQUEST", field);
    assert.equal(error.details.field, field);
  }
  await expectCode(() => new FreestyleRuntime(null as never), "INVALID_REQUEST");
  assert.equal(resolveOptions({ apiKey: "k", owner: "x".repeat(63) }).owner.length, 63);
});

test("the SDK is loaded at first use, once; the legacy freestyle-sandboxes module is refused", async () => {
  const emulator = await startFreestyleEmulator();
  try {
    let loads = 0;
    const runtime = new FreestyleRuntime({
      ...emulatorOptions(emulator),
      sdk: async () => {
        loads++;
        return (await import("freestyle")) as FreestyleSdkModule;
      },
    });
    assert.equal(loads, 0, "the constructor does no I/O");
    assert.equal(await runtime.getById("nothing"), undefined);
    assert.equal(await runtime.getById("nothing"), undefined);
    assert.equal(loads, 1, "loaded once");
  } finally {
    await emulator.stop();
  }
  // A structural stand-in for the legacy package: a Freestyle class, no FreestyleApiError.
  const legacy = new FreestyleRuntime({ apiKey: "k", sdk: { Freestyle: class {} } as unknown as FreestyleSdkModule });
  const refused = await expectCode(legacy.findByLabels({}), "SDK_UNAVAILABLE");
  assert.match(refused.message, /lacks FreestyleApiError/);
  assert.match(refused.message, /npm install freestyle@">=0\.2\.0 <0\.3"/);
});
