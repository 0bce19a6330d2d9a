// Options: defaults, refusals, nothing from the environment, no I/O before
// the first call, and what a missing or wrong SDK turns into.
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectCode } from "@sandport/testkit/assertions";
import { startE2BEmulator } from "@sandport/testkit/emulators/e2b";
import { E2BContext } from "./context.js";
import { E2BRuntime } from "./e2b-runtime.js";
import type { E2BSdkModule } from "./internal/sdk-types.js";
import { DEFAULT_E2B_TIMEOUTS, resolveOptions } from "./options.js";

test("apiKey is required and never taken from E2B_API_KEY", async () => {
  const saved = process.env.E2B_API_KEY;
  process.env.E2B_API_KEY = "e2b_from_the_environment";
  try {
    const missing = await expectCode(() => new E2BRuntime({} as never), "INVALID_REQUEST");
    assert.equal(missing.details.field, "apiKey");
    await expectCode(() => new E2BRuntime({ apiKey: "  " }), "INVALID_REQUEST");
  } finally {
    if (saved === undefined) delete process.env.E2B_API_KEY;
    else process.env.E2B_API_KEY = saved;
  }
});

test("defaults: hosted domain, derived URLs, explicit lifetime, run budget, workspace and deadlines", () => {
  const options = resolveOptions({ apiKey: "k" });
  assert.deepEqual(
    [options.domain, options.apiUrl, options.sandboxUrl],
    ["e2b.app", "https://api.e2b.app", "https://sandbox.e2b.app"],
  );
  assert.equal(options.workspaceRoot, "/home/user/workspace");
  assert.equal(options.commandStateDirectory, "/home/user/.sandport/commands");
  assert.equal(options.scratchDirectory, "/home/user/.sandport/stdin");
  assert.deepEqual([options.lifetimeMs, options.runBudgetMs, options.maxOutputBytes], [3_600_000, 600_000, 16 << 20]);
  assert.deepEqual([options.template, options.owner, options.network], ["base", "sandport", true]);
  assert.equal(options.allowPublicTraffic, true, "E2B's own default");
  assert.equal(options.portProxyUrl, undefined, "the hosted sandbox URL is no port proxy: ports use their own hosts");
  assert.deepEqual([options.rateLimitRetries, options.listPageSize, options.orphanCleanupMs], [3, 100, 120_000]);
  assert.deepEqual(options.timeouts, DEFAULT_E2B_TIMEOUTS);
  const tuned = resolveOptions({ apiKey: "k", timeouts: { fileMs: 5_000 }, orphanCleanupMs: 9_000 });
  assert.deepEqual(tuned.timeouts, { ...DEFAULT_E2B_TIMEOUTS, fileMs: 5_000 });
  assert.equal(tuned.orphanCleanupMs, 9_000);
});

test("a self-hosted domain gets per-sandbox envd URLs; an emulator's origin serves them all", () => {
  const selfHosted = new E2BContext(resolveOptions({ apiKey: "k", domain: "e2b.example.com" }));
  assert.equal(selfHosted.options.apiUrl, "https://api.e2b.example.com");
  assert.equal(selfHosted.options.sandboxUrl, undefined);
  assert.equal(selfHosted.sandboxUrlFor("abc"), "https://49983-abc.e2b.example.com");
  const emulated = new E2BContext(
    resolveOptions({ apiKey: "k", apiUrl: "http://127.0.0.1:1/", sandboxUrl: "http://127.0.0.1:2" }),
  );
  assert.equal(emulated.options.apiUrl, "http://127.0.0.1:1");
  assert.equal(emulated.sandboxUrlFor("abc"), "http://127.0.0.1:2");
});

test("connection fields carry every value the SDK would read from E2B_* variables", () => {
  const context = new E2BContext(
    resolveOptions({ apiKey: "k", apiUrl: "http://127.0.0.1:1", sandboxUrl: "http://127.0.0.1:2" }),
  );
  const signal = new AbortController().signal;
  assert.deepEqual(context.fields({ remainingMs: () => 1234, signal }), {
    apiKey: "k",
    domain: "e2b.app",
    apiUrl: "http://127.0.0.1:1",
    sandboxUrl: "http://127.0.0.1:2",
    debug: false,
    requestTimeoutMs: 1234,
    retries: 3,
    signal,
  });
  assert.equal(context.fields({ remainingMs: () => 0 }).requestTimeoutMs, 1, "never 0, which means no timeout");
});

test("invalid options are refused with INVALID_REQUEST naming the field", async () => {
  const bad: [string, Record<string, unknown>][] = [
    ["apiUrl", { apiUrl: "not a url" }],
    ["sandboxUrl", { sandboxUrl: "ftp://x" }],
    ["domain", { domain: "a b" }],
    ["workspaceRoot", { workspaceRoot: "relative" }],
    ["workspaceRoot", { workspaceRoot: "/a/../b" }],
    ["timeouts.launchMs", { timeouts: { launchMs: -1 } }],
    ["timeouts.nonsense", { timeouts: { nonsense: 5 } }],
    ["timeouts.orphanCleanupMs", { timeouts: { orphanCleanupMs: 5 } }],
    ["orphanCleanupMs", { orphanCleanupMs: 0 }],
    ["lifetimeMs", { lifetimeMs: 0 }],
    ["runBudgetMs", { runBudgetMs: 1.5 }],
    ["maxOutputBytes", { maxOutputBytes: -1 }],
    ["rateLimitRetries", { rateLimitRetries: -1 }],
    ["listPageSize", { listPageSize: 0 }],
    ["listPageSize", { listPageSize: 101 }],
    ["network", { network: "yes" }],
    ["allowPublicTraffic", { allowPublicTraffic: "no" }],
    ["owner", { owner: "has space" }],
    ["owner", { owner: "x".repeat(65) }],
    ["onBackgroundError", { onBackgroundError: "log" }],
  ];
  for (const [field, extra] of bad) {
    const error = await expectCode(() => new E2BRuntime({ apiKey: "k", ...extra }), "INVALID_REQUEST", field);
    assert.equal(error.details.field, field);
  }
  await expectCode(() => new E2BRuntime(null as never), "INVALID_REQUEST");
  assert.equal(resolveOptions({ apiKey: "k", listPageSize: 100, owner: "a.b_c-9" }).owner, "a.b_c-9");
});

test("the constructor does no I/O: the SDK is loaded at first use", async () => {
  const emulator = await startE2BEmulator();
  try {
    let loads = 0;
    const { debug: _debug, ...connection } = emulator.sdkOptions;
    const runtime = new E2BRuntime({
      ...connection,
      sdk: async () => {
        loads++;
        return (await import("e2b")) as E2BSdkModule;
      },
    });
    assert.equal(loads, 0);
    assert.equal(emulator.countRequests(), 0);
    assert.equal(await runtime.getById("nothing"), undefined);
    assert.equal(await runtime.getById("nothing"), undefined);
    assert.equal(loads, 1, "loaded once");
  } finally {
    await emulator.stop();
  }
});

test("an SDK that cannot be loaded, or is not the SDK, is SDK_UNAVAILABLE; a later call loads again", async () => {
  let attempts = 0;
  const runtime = new E2BRuntime({
    apiKey: "k",
    sdk: async () => {
      attempts++;
      throw new Error("Cannot find package 'e2b'");
    },
  });
  const missing = await expectCode(runtime.getById("sbx"), "SDK_UNAVAILABLE");
  assert.match(missing.message, /npm install e2b@">=2\.0\.0 <3"/);
  assert.match(missing.message, /Cannot find package 'e2b'/);
  await expectCode(runtime.launch(), "SDK_UNAVAILABLE");
  assert.equal(attempts, 2, "a failed load is not cached");
  // A structural stand-in for the wrong package: no Sandbox class at all.
  const wrong = new E2BRuntime({ apiKey: "k", sdk: { Sandbox: {} } as unknown as E2BSdkModule });
  const lacking = await expectCode(wrong.findByLabels({}), "SDK_UNAVAILABLE");
  assert.match(lacking.message, /lacks Sandbox\.create/);
});
