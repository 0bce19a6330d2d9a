import assert from "node:assert/strict";
import { test } from "node:test";
import { E2BRuntime } from "./e2b-runtime.js";
import { connectionFields, resolveOptions, sandboxUrlFor } from "./options.js";
import { rejectsWithCode } from "./testing/assertions.js";
import { FakeE2B } from "./testing/fake-e2b.js";

test("apiKey is required and never taken from E2B_API_KEY", async () => {
  const saved = process.env.E2B_API_KEY;
  process.env.E2B_API_KEY = "e2b_from_the_environment";
  try {
    await rejectsWithCode(async () => new E2BRuntime({} as never), "INVALID_REQUEST");
    await rejectsWithCode(async () => new E2BRuntime({ apiKey: "  " }), "INVALID_REQUEST");
  } finally {
    if (saved === undefined) delete process.env.E2B_API_KEY;
    else process.env.E2B_API_KEY = saved;
  }
});

test("defaults: hosted domain, derived URLs, explicit lifetime, run budget and workspace", () => {
  const options = resolveOptions({ apiKey: "k" });
  assert.equal(options.domain, "e2b.app");
  assert.equal(options.apiUrl, "https://api.e2b.app");
  assert.equal(options.sandboxUrl, "https://sandbox.e2b.app");
  assert.equal(options.workspaceRoot, "/home/user/workspace");
  assert.equal(options.commandStateDirectory, "/home/user/.sandport/commands");
  assert.equal(options.lifetimeMs, 3_600_000);
  assert.equal(options.runBudgetMs, 600_000);
  assert.equal(options.template, "base");
  assert.equal(options.owner, "sandport");
  assert.equal(options.network, true);
});

test("a self-hosted domain gets per-sandbox envd URLs, spelled out", () => {
  const options = resolveOptions({ apiKey: "k", domain: "e2b.example.com" });
  assert.equal(options.apiUrl, "https://api.e2b.example.com");
  assert.equal(options.sandboxUrl, undefined);
  assert.equal(sandboxUrlFor(options, "abc"), "https://49983-abc.e2b.example.com");
  const emulator = resolveOptions({ apiKey: "k", apiUrl: "http://127.0.0.1:1/", sandboxUrl: "http://127.0.0.1:2" });
  assert.equal(emulator.apiUrl, "http://127.0.0.1:1");
  assert.equal(sandboxUrlFor(emulator, "abc"), "http://127.0.0.1:2");
});

test("connection fields carry every value the SDK would read from E2B_* variables", () => {
  const options = resolveOptions({ apiKey: "k", apiUrl: "http://127.0.0.1:1", sandboxUrl: "http://127.0.0.1:2" });
  const signal = new AbortController().signal;
  assert.deepEqual(connectionFields(options, { requestTimeoutMs: 1234, signal }), {
    apiKey: "k",
    domain: "e2b.app",
    apiUrl: "http://127.0.0.1:1",
    sandboxUrl: "http://127.0.0.1:2",
    debug: false,
    requestTimeoutMs: 1234,
    retries: 3,
    signal,
  });
});

test("invalid options are refused with INVALID_REQUEST", async () => {
  const bad: Record<string, unknown>[] = [
    { apiUrl: "not a url" },
    { sandboxUrl: "ftp://x" },
    { domain: "a b" },
    { workspaceRoot: "relative" },
    { workspaceRoot: "/a/../b" },
    { timeouts: { launchMs: -1 } },
    { timeouts: { nonsense: 5 } },
    { lifetimeMs: 0 },
    { runBudgetMs: 1.5 },
    { rateLimitRetries: -1 },
    { listPageSize: 0 },
    { network: "yes" },
  ];
  for (const extra of bad) {
    await rejectsWithCode(async () => new E2BRuntime({ apiKey: "k", ...extra }), "INVALID_REQUEST");
  }
});

test("the constructor does no I/O: the SDK is loaded at first use", async () => {
  let loads = 0;
  const fake = new FakeE2B();
  const runtime = new E2BRuntime({
    apiKey: "k",
    sdk: async () => {
      loads++;
      return fake.module;
    },
  });
  assert.equal(loads, 0);
  assert.equal(fake.calls.length, 0);
  assert.equal(await runtime.getById("nothing"), undefined);
  assert.equal(loads, 1);
});
