// Options: defaults, refusals (a JWT-shaped token among them), nothing from the
// environment, no I/O before the first call, and what a missing or wrong SDK turns into.
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectCode } from "@sandport/testkit/assertions";
import { startVercelEmulator } from "@sandport/testkit/emulators/vercel";
import { emulatorOptions } from "../test/emulated.js";
import { VercelContext } from "./context.js";
import type { VercelSdkModule } from "./internal/sdk-types.js";
import { DEFAULT_VERCEL_TIMEOUTS, resolveOptions } from "./options.js";
import { VercelRuntime } from "./vercel-runtime.js";

const credentials = { token: "vcp_token", teamId: "team_1", projectId: "prj_1" };

test("token, teamId and projectId are required, never taken from the environment", async () => {
  const saved = { ...process.env };
  Object.assign(process.env, { VERCEL_OIDC_TOKEN: "a.b.c", VERCEL_TEAM_ID: "team_env", VERCEL_PROJECT_ID: "prj_env" });
  try {
    for (const field of ["token", "teamId", "projectId"] as const) {
      const { [field]: _missing, ...rest } = credentials;
      const error = await expectCode(() => new VercelRuntime(rest as never), "INVALID_REQUEST", field);
      assert.equal(error.details.field, field);
    }
    await expectCode(() => new VercelRuntime({ ...credentials, token: " " }), "INVALID_REQUEST");
  } finally {
    for (const name of ["VERCEL_OIDC_TOKEN", "VERCEL_TEAM_ID", "VERCEL_PROJECT_ID"]) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  }
});

test("a JWT-shaped token is refused: the SDK would refresh it through Vercel OIDC from the environment", async () => {
  const payload = Buffer.from(JSON.stringify({ owner_id: "team_1", project_id: "prj_1" })).toString("base64url");
  const error = await expectCode(
    () => new VercelRuntime({ ...credentials, token: `eyJhbGciOiJub25lIn0.${payload}.` }),
    "INVALID_REQUEST",
  );
  assert.equal(error.details.field, "token");
  assert.match(error.message, /JWT/);
});

test("defaults: name prefix from the owner, home and workspace, explicit lifetime, vCPUs, network, deadlines", () => {
  const options = resolveOptions(credentials);
  assert.equal(options.namePrefix, "sandport-sandport-");
  assert.equal(resolveOptions({ ...credentials, owner: "ci" }).namePrefix, "sandport-ci-");
  assert.deepEqual(
    [options.homeDirectory, options.workspaceRoot, options.sessionDirectory, options.stdinDirectory],
    [
      "/vercel/sandbox",
      "/vercel/sandbox/workspace",
      "/vercel/sandbox/.sandport/sessions",
      "/vercel/sandbox/.sandport/stdin",
    ],
  );
  assert.deepEqual([options.lifetimeMs, options.runBudgetMs, options.maxOutputBytes], [1_800_000, 600_000, 16 << 20]);
  assert.deepEqual([options.vcpus, options.network, options.image, options.region], [2, true, undefined, undefined]);
  assert.deepEqual([options.listPageSize, options.orphanCleanupMs, options.fetch], [50, 120_000, undefined]);
  assert.deepEqual(options.timeouts, DEFAULT_VERCEL_TIMEOUTS);
  const tuned = resolveOptions({ ...credentials, homeDirectory: "/home/me", timeouts: { fileMs: 5_000 } });
  assert.equal(tuned.workspaceRoot, "/home/me/workspace");
  assert.deepEqual(tuned.timeouts, { ...DEFAULT_VERCEL_TIMEOUTS, fileMs: 5_000 });
});

test("every static SDK call carries all three credentials, the guarded fetch and the call's signal", () => {
  const context = new VercelContext(resolveOptions(credentials));
  const signal = new AbortController().signal;
  const { fetch, ...rest } = context.connection({ signal, remainingMs: () => 1_000 });
  assert.deepEqual(rest, { ...credentials, signal });
  assert.equal(typeof fetch, "function");
  assert.notEqual(fetch, globalThis.fetch, "the SDK gets the adapter's fetch, never the platform's as it stands");
});

test("invalid options are refused with INVALID_REQUEST naming the field", async () => {
  const bad: [string, Record<string, unknown>][] = [
    ["namePrefix", { namePrefix: "-starts-with-dash" }],
    ["namePrefix", { namePrefix: "has space" }],
    ["namePrefix", { namePrefix: "x".repeat(93) }],
    ["homeDirectory", { homeDirectory: "relative" }],
    ["homeDirectory", { homeDirectory: "/a/../b" }],
    ["vcpus", { vcpus: 0 }],
    ["vcpus", { vcpus: 9 }],
    ["vcpus", { vcpus: 1.5 }],
    ["vcpus", { vcpus: 3 }],
    ["lifetimeMs", { lifetimeMs: 0 }],
    ["lifetimeMs", { lifetimeMs: 25 * 60 * 60 * 1000 }],
    ["image", { image: "" }],
    ["region", { region: 7 }],
    ["timeouts.launchMs", { timeouts: { launchMs: -1 } }],
    ["timeouts.nonsense", { timeouts: { nonsense: 5 } }],
    ["orphanCleanupMs", { orphanCleanupMs: 0 }],
    ["runBudgetMs", { runBudgetMs: 1.5 }],
    ["maxOutputBytes", { maxOutputBytes: -1 }],
    ["listPageSize", { listPageSize: 0 }],
    ["listPageSize", { listPageSize: 51 }],
    ["network", { network: "yes" }],
    ["owner", { owner: "has space" }],
    ["fetch", { fetch: "https://proxy" }],
    ["onBackgroundError", { onBackgroundError: "log" }],
  ];
  for (const [field, extra] of bad) {
    const error = await expectCode(() => new VercelRuntime({ ...credentials, ...extra }), "INVALID_REQUEST", field);
    assert.equal(error.details.field, field);
  }
  await expectCode(() => new VercelRuntime(null as never), "INVALID_REQUEST");
  assert.equal(resolveOptions({ ...credentials, namePrefix: "ci.runner_1-" }).namePrefix, "ci.runner_1-");
  const longOwner = "o".repeat(64);
  assert.equal(resolveOptions({ ...credentials, owner: longOwner }).namePrefix, `sandport-${longOwner}-`);
});

test("the constructor does no I/O: the SDK is loaded at first use", async () => {
  const emulator = await startVercelEmulator();
  try {
    let loads = 0;
    const runtime = new VercelRuntime({
      ...emulatorOptions(emulator),
      sdk: async () => {
        loads++;
        return (await import("@vercel/sandbox")) as VercelSdkModule;
      },
    });
    assert.equal(loads, 0);
    assert.equal(emulator.countRequests(), 0);
    assert.equal(await runtime.getById("sandport-sandport-nothing"), undefined);
    assert.equal(await runtime.getById("sandport-sandport-nothing"), undefined);
    assert.equal(loads, 1, "loaded once");
  } finally {
    await emulator.stop();
  }
});

test("an SDK that cannot be loaded, or is not the SDK, is SDK_UNAVAILABLE; a later call loads again", async () => {
  let attempts = 0;
  const runtime = new VercelRuntime({
    ...credentials,
    sdk: async () => {
      attempts++;
      throw new Error("Cannot find package '@vercel/sandbox'");
    },
  });
  const missing = await expectCode(runtime.getById("sandport-sandport-x"), "SDK_UNAVAILABLE");
  assert.match(missing.message, /npm install @vercel\/sandbox@">=3\.0\.0 <4"/);
  assert.match(missing.message, /Cannot find package '@vercel\/sandbox'/);
  await expectCode(runtime.launch(), "SDK_UNAVAILABLE");
  assert.equal(attempts, 2, "a failed load is not cached");
  // A structural stand-in for the wrong package: no Sandbox class at all.
  const wrong = new VercelRuntime({ ...credentials, sdk: { Sandbox: {} } as unknown as VercelSdkModule });
  const lacking = await expectCode(wrong.findByLabels({}), "SDK_UNAVAILABLE");
  assert.match(lacking.message, /lacks Sandbox\.create/);
});
