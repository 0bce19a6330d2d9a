// Options: defaults, refusals (all before any SDK call), nothing from the environment.
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectCode } from "@sandport/testkit/assertions";
import type { MicrosandboxSdk } from "./internal/sdk-types.js";
import { MicrosandboxRuntime } from "./microsandbox-runtime.js";
import {
  DEFAULT_CLOUD_URL,
  DEFAULT_MICROSANDBOX_TIMEOUTS,
  type MicrosandboxRuntimeOptions,
  resolveOptions,
} from "./options.js";

const cloud = { kind: "cloud", apiKey: "msb_key" } as const;

/** An SDK source that counts how often it is asked for the SDK: a constructor must never ask. */
function countingSdk(): { source: () => Promise<MicrosandboxSdk>; loads: () => number } {
  let loads = 0;
  return {
    source: async () => {
      loads += 1;
      throw new Error("the SDK must not be loaded by a constructor");
    },
    loads: () => loads,
  };
}

test("defaults: the hosted cloud URL, image, resources, workspace, lifetime, run budget and deadlines", () => {
  const options = resolveOptions({ backend: cloud });
  assert.deepEqual(options.backend, { kind: "cloud", apiKey: "msb_key", url: DEFAULT_CLOUD_URL });
  assert.equal(DEFAULT_CLOUD_URL, "https://api.microsandbox.dev");
  assert.deepEqual(
    [options.image, options.snapshot, options.vcpus, options.memoryMiB, options.workspaceRoot],
    ["debian:bookworm-slim", undefined, 1, 512, "/workspace"],
  );
  assert.deepEqual([options.maxDurationMs, options.idleTimeoutMs, options.network], [3_600_000, undefined, true]);
  assert.deepEqual([options.runBudgetMs, options.maxOutputBytes, options.owner], [600_000, 16 << 20, "sandport"]);
  assert.deepEqual([options.listPageSize, options.orphanCleanupMs], [100, 120_000]);
  assert.deepEqual(options.timeouts, DEFAULT_MICROSANDBOX_TIMEOUTS);
  const tuned = resolveOptions({
    backend: { kind: "cloud", apiKey: "k", url: "http://127.0.0.1:8080/" },
    resources: { vcpus: 2, memoryMiB: 1024 },
    idleTimeoutMs: 30_000,
    timeouts: { fileMs: 5_000 },
  });
  assert.deepEqual(tuned.backend, { kind: "cloud", apiKey: "k", url: "http://127.0.0.1:8080" });
  assert.deepEqual([tuned.vcpus, tuned.memoryMiB, tuned.idleTimeoutMs], [2, 1024, 30_000]);
  assert.deepEqual(tuned.timeouts, { ...DEFAULT_MICROSANDBOX_TIMEOUTS, fileMs: 5_000 });
  assert.deepEqual(resolveOptions({ backend: { kind: "local" }, snapshot: "warm" }).backend, { kind: "local" });
});

test("the backend is required and explicit: nothing is read from MSB_* variables", async () => {
  const saved = { ...process.env };
  Object.assign(process.env, { MSB_BACKEND: "cloud", MSB_API_KEY: "msb_env_key", MSB_API_URL: "http://127.0.0.1:9" });
  try {
    const missing = await expectCode(
      () => new MicrosandboxRuntime({} as MicrosandboxRuntimeOptions),
      "INVALID_REQUEST",
    );
    assert.equal(missing.details.field, "backend");
    const noKey = await expectCode(
      () => new MicrosandboxRuntime({ backend: { kind: "cloud" } as never }),
      "INVALID_REQUEST",
    );
    assert.equal(noKey.details.field, "backend.apiKey");
    assert.match(noKey.message, /nothing is read from MSB_API_KEY/);
    assert.deepEqual(resolveOptions({ backend: cloud }).backend, {
      kind: "cloud",
      apiKey: "msb_key",
      url: DEFAULT_CLOUD_URL,
    });
  } finally {
    for (const key of ["MSB_BACKEND", "MSB_API_KEY", "MSB_API_URL"]) {
      if (saved[key] === undefined) delete process.env[key];
      else process.env[key] = saved[key];
    }
  }
});

test("refusals name the option, and none of them loads the SDK", async () => {
  const sdk = countingSdk();
  const refused: [Partial<MicrosandboxRuntimeOptions> & Record<string, unknown>, string][] = [
    [{ backend: { kind: "nimbus" } as never }, "backend.kind"],
    [{ backend: { kind: "local", apiKey: "k" } as never }, "backend"],
    [{ backend: { kind: "cloud", apiKey: "k", url: "ftp://x" } }, "backend.url"],
    [{ backend: { kind: "cloud", apiKey: " " } }, "backend.apiKey"],
    [{ backend: cloud, image: "" }, "image"],
    [{ backend: { kind: "local" }, image: "alpine", snapshot: "warm" }, "snapshot"],
    [{ backend: cloud, resources: { vcpus: 0 } }, "resources.vcpus"],
    [{ backend: cloud, resources: { vcpus: 1.5 } }, "resources.vcpus"],
    [{ backend: cloud, resources: { memoryMiB: 64 } }, "resources.memoryMiB"],
    [{ backend: cloud, workspaceRoot: "workspace" }, "workspaceRoot"],
    [{ backend: cloud, workspaceRoot: "/a/../b" }, "workspaceRoot"],
    [{ backend: cloud, maxDurationMs: 0 }, "maxDurationMs"],
    [{ backend: cloud, idleTimeoutMs: -5 }, "idleTimeoutMs"],
    [{ backend: cloud, network: "yes" as never }, "network"],
    [{ backend: cloud, listPageSize: 101 }, "listPageSize"],
    [{ backend: cloud, owner: "has space" }, "owner"],
    [{ backend: cloud, timeouts: { nope: 1 } as never }, "timeouts.nope"],
    [{ backend: cloud, onBackgroundError: "log" as never }, "onBackgroundError"],
  ];
  for (const [options, field] of refused) {
    const error = await expectCode(
      () => new MicrosandboxRuntime({ ...options, sdk: sdk.source } as MicrosandboxRuntimeOptions),
      "INVALID_REQUEST",
      JSON.stringify(options),
    );
    assert.equal(error.details.field, field, JSON.stringify(options));
    assert.match(error.message, new RegExp(`^MicrosandboxRuntime option ${field.replace(".", "\\.")} `));
  }
  assert.equal(sdk.loads(), 0);
});

test("a snapshot with the cloud backend is refused in the constructor: it is a file on this machine", async () => {
  const sdk = countingSdk();
  const error = await expectCode(
    () => new MicrosandboxRuntime({ backend: cloud, snapshot: "warm-python", sdk: sdk.source }),
    "INVALID_REQUEST",
  );
  assert.equal(error.details.field, "snapshot");
  assert.match(error.message, /needs the local backend/);
  assert.equal(sdk.loads(), 0, "refused before any SDK call");
  assert.doesNotThrow(() => new MicrosandboxRuntime({ backend: { kind: "local" }, snapshot: "warm-python" }));
});
