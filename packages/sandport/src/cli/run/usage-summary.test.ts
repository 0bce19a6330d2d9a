import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import type { SandboxUsage } from "@sandport/core";
import { formatBytes, readPriceTable, usageSummary } from "./usage-summary.js";

const usage: SandboxUsage = {
  sandboxId: "sbx-1",
  runtime: { index: 0, provider: "local" },
  reused: false,
  createdAt: undefined,
  launchedAt: "2026-01-01T00:00:00.000Z",
  destroyedAt: "2026-01-01T00:00:02.500Z",
  end: "destroyed",
  measuredAt: "2026-01-01T00:00:02.500Z",
  sandboxSeconds: 2.5,
  execs: { count: 2, durationMs: 1_200 },
  bytesIn: { files: 1_000, stdin: 24 },
  bytesOut: { files: 0, output: 1_536 },
  resources: {},
};

test("the usage line: life, commands, bytes in and out, and the estimate only where the table priced it", () => {
  assert.equal(usageSummary(usage), "usage: 2.5s of sandbox, 2 commands (1.2s), 1.0 KiB in, 1.5 KiB out");
  const priced: SandboxUsage = {
    ...usage,
    estimate: {
      currency: "EUR",
      provider: "local",
      total: 0.0125,
      lines: [{ price: "sandboxSecond", rate: 0.005, quantity: 2.5, unit: "sandbox-second", amount: 0.0125 }],
      unpriced: [{ price: "memoryGiBSecond", reason: "no memory size" }],
    },
  };
  assert.match(usageSummary(priced), /, estimate 0\.0125 EUR \(not priced: memoryGiBSecond\)$/);
  const unnamed: SandboxUsage = {
    ...usage,
    estimate: {
      currency: "EUR",
      provider: "local",
      total: undefined,
      lines: [],
      unpriced: [{ price: "all", reason: "no prices for local" }],
    },
  };
  assert.match(usageSummary(unnamed), /, no estimate: no prices for local$/);
});

test("formatBytes keeps small counts exact and scales the rest by 1024", () => {
  assert.deepEqual([0, 1023, 1024, 1536, 5 * 1024 ** 2, 3 * 1024 ** 3].map(formatBytes), [
    "0 B",
    "1023 B",
    "1.0 KiB",
    "1.5 KiB",
    "5.0 MiB",
    "3.0 GiB",
  ]);
});

test("readPriceTable: none without --prices; an unreadable or malformed file is a usage error naming it", async () => {
  const directory = mkdtempSync(join(tmpdir(), "sandport-prices-"));
  try {
    assert.equal(await readPriceTable(directory, undefined), undefined);
    writeFileSync(join(directory, "ok.json"), '{"currency":"USD","providers":{"e2b":{"sandboxSecond":0.00005}}}');
    assert.deepEqual(await readPriceTable(directory, "ok.json"), {
      currency: "USD",
      providers: { e2b: { sandboxSecond: 0.00005 } },
    });
    writeFileSync(join(directory, "bad.json"), "{");
    await assert.rejects(readPriceTable(directory, "bad.json"), {
      code: "UNREADABLE_FILE",
      message: /^--prices bad\.json: /,
    });
    await assert.rejects(readPriceTable(directory, "absent.json"), { code: "UNREADABLE_FILE", message: /ENOENT/ });
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});
