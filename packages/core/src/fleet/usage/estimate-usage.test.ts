import assert from "node:assert/strict";
import { test } from "node:test";
import { estimateUsage, type MeteredUsage } from "./estimate-usage.js";

const GIB = 1024 ** 3;

const usage: MeteredUsage = {
  sandboxId: "sbx-1",
  runtime: { index: 0, provider: "acme" },
  reused: false,
  createdAt: undefined,
  launchedAt: "2026-01-01T00:00:00.000Z",
  destroyedAt: "2026-01-01T00:01:40.000Z",
  end: "destroyed",
  measuredAt: "2026-01-01T00:01:40.000Z",
  sandboxSeconds: 100,
  execs: { count: 3, durationMs: 20_000 },
  bytesIn: { files: GIB / 2, stdin: GIB / 2 },
  bytesOut: { files: GIB, output: GIB },
  resources: { memoryMiB: 2048, cpus: 2 },
};

test("each price of the provider's entry becomes a line: rate × what was measured, in the table's currency", () => {
  const estimate = estimateUsage(
    usage,
    {
      currency: "credits",
      providers: {
        acme: { sandboxSecond: 0.01, memoryGiBSecond: 0.001, vcpuSecond: 0.002, execSecond: 0.1, gibIn: 1, gibOut: 3 },
        other: { sandboxSecond: 99 },
      },
    },
    "acme",
  );
  assert.equal(estimate.currency, "credits");
  assert.equal(estimate.provider, "acme");
  assert.deepEqual(
    estimate.lines.map((line) => [line.price, line.unit, line.quantity, line.amount]),
    [
      ["sandboxSecond", "sandbox-second", 100, 1],
      ["memoryGiBSecond", "GiB-second", 200, 0.2],
      ["vcpuSecond", "vCPU-second", 200, 0.4],
      ["execSecond", "exec-second", 20, 2],
      ["gibIn", "GiB", 1, 1],
      ["gibOut", "GiB", 2, 6],
    ],
  );
  assert.ok(Math.abs((estimate.total ?? 0) - 10.6) < 1e-9, String(estimate.total));
  assert.deepEqual(estimate.unpriced, []);
});

test("a price the usage cannot measure is listed as unpriced with why, never guessed", () => {
  const estimate = estimateUsage(
    { ...usage, resources: {} },
    { currency: "USD", providers: { acme: { sandboxSecond: 0.5, memoryGiBSecond: 1, vcpuSecond: 1 } } },
    "acme",
  );
  assert.deepEqual(
    estimate.lines.map((line) => line.price),
    ["sandboxSecond"],
  );
  assert.equal(estimate.total, 50);
  assert.deepEqual(
    estimate.unpriced.map((item) => item.price),
    ["memoryGiBSecond", "vcpuSecond"],
  );
  assert.match(estimate.unpriced[0]?.reason ?? "", /no resources\.memoryMiB/);
});

test("a provider the table does not name gets no total, and says so", () => {
  const estimate = estimateUsage(usage, { currency: "USD", providers: { other: { sandboxSecond: 1 } } }, "acme");
  assert.equal(estimate.total, undefined);
  assert.deepEqual(estimate.lines, []);
  assert.deepEqual(estimate.unpriced, [{ price: "all", reason: 'the price table has no prices for provider "acme"' }]);
});
