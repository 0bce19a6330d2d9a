// The round-trip report's own logic: external figures must say where they came from, the API minimum
// is given per phase with a reason, and the arithmetic and markdown rows the docs table is made of.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import {
  checkMinimum,
  extraPhases,
  foldRoutes,
  largeFileRow,
  median,
  minimumTotal,
  phaseRows,
  REQUESTS_HEADER,
  requestsRow,
  summaryLine,
  timingRow,
} from "./report.mjs";
import { benchProvider, checkExternalFigure } from "./workload.mjs";

const folder = fileURLToPath(new URL(".", import.meta.url));
const helpers = [
  "workload.mjs",
  "report.mjs",
  "large-file.mjs",
  "timing.mjs",
  "baseline.mjs",
  "wire-bytes.mjs",
  "peers.mjs",
];
const providerScripts = readdirSync(folder).filter((file) => file.endsWith(".mjs") && !helpers.includes(file));

const E2B_MINIMUM = {
  launch: [1, "POST /v2/sandboxes answers once it runs"],
  write: [1, "POST /files takes every file at once"],
  exec: [3, "one process Start per command"],
  read: [2, "one GET /files per file"],
  destroy: [1, "DELETE /sandboxes/:id"],
};

describe("external figures in the round-trip report", () => {
  test("a figure without its source is refused before the workload runs", async () => {
    assert.throws(() => checkExternalFigure({ name: "ComputeSDK", requests: 28 }), /must say where it came from/);
    assert.throws(() => checkExternalFigure({ name: "", requests: 28, source: "x".repeat(30) }), /needs a name/);
    let started = false;
    await assert.rejects(
      benchProvider({
        adapter: "P",
        title: "t",
        start: async () => {
          started = true;
        },
        runtime: async () => undefined,
        minimum: E2B_MINIMUM,
        peers: [{ name: "P", requests: 1 }],
      }),
      /must say where it came from/,
    );
    assert.equal(started, false, "the emulator is never started: the refusal comes first");
  });

  test("every provider script's peer figures carry a source", () => {
    for (const file of providerScripts) {
      const text = readFileSync(`${folder}/${file}`, "utf8");
      const peers = (text.match(/\bpeers:/g) ?? []).length;
      const sources = (text.match(/\bsource:/g) ?? []).length;
      assert.equal(sources, peers, `${file}: every peer figure needs a source`);
    }
  });
});

describe("the API minimum per phase", () => {
  test("a minimum that misses a phase, a count or a reason is refused before the emulator starts", async () => {
    const { read: _read, ...noRead } = E2B_MINIMUM;
    assert.throws(() => checkMinimum(noRead), /request count for the read phase/);
    assert.throws(() => checkMinimum({ ...E2B_MINIMUM, exec: [3] }), /exec phase must say why/);
    assert.throws(() => checkMinimum({ ...E2B_MINIMUM, exec: [-1, "a reason long enough"] }), /request count/);
    assert.throws(() => checkMinimum({ ...E2B_MINIMUM, upload: [1, "not a phase of W"] }), /no such phase.*upload/);
    let started = false;
    await assert.rejects(
      benchProvider({
        adapter: "P",
        title: "t",
        start: async () => {
          started = true;
        },
        runtime: async () => undefined,
        minimum: noRead,
      }),
      /read phase/,
    );
    assert.equal(started, false);
  });

  test("every provider script gives a minimum per phase, each with its reason", () => {
    for (const file of providerScripts) {
      const text = readFileSync(`${folder}/${file}`, "utf8");
      for (const phase of ["launch", "write", "exec", "read", "destroy"])
        assert.match(text, new RegExp(`\\b${phase}: (\\[\\d+, "|[A-Z]+)`), `${file}: the ${phase} phase's minimum`);
    }
  });

  test("phases are compared with their own minimum, and the sum is the workload's minimum", () => {
    assert.equal(minimumTotal(E2B_MINIMUM), 8);
    const rows = phaseRows({ launch: 2, write: 1, exec: 3, read: 4, destroy: 2 }, E2B_MINIMUM);
    assert.deepEqual(
      rows.map((row) => [row.key, row.requests, row.minimum, row.extra]),
      [
        ["launch", 2, 1, 1],
        ["write", 1, 1, 0],
        ["exec", 3, 3, 0],
        ["read", 4, 2, 2],
        ["destroy", 2, 1, 1],
      ],
    );
    assert.equal(extraPhases(rows), "launch +1, read +2, destroy +1");
    // Bulk transfer can take a phase below a per-file minimum.
    const bulk = phaseRows(
      { launch: 1, write: 2, exec: 3, read: 2, destroy: 1 },
      { ...E2B_MINIMUM, write: [20, "one PUT per file"] },
    );
    assert.equal(extraPhases(bulk), "write −18");
  });

  test("the summary says minimum + N, or minus when below it", () => {
    assert.equal(summaryLine(12, 8), "12 requests = API minimum 8 + 4");
    assert.equal(summaryLine(9, 9), "9 requests = API minimum 9 + 0");
    assert.equal(summaryLine(40, 84), "40 requests = API minimum 84 − 44");
  });
});

describe("the markdown rows of docs/benchmarks.md", () => {
  test("a requests row has a cell per column of the header", () => {
    const rows = phaseRows({ launch: 2, write: 1, exec: 3, read: 4, destroy: 2 }, E2B_MINIMUM);
    const measured = { name: "ComputeSDK 4.1.4", short: "ComputeSDK", requests: 27, measured: true };
    const external = { name: "X", short: "X", requests: 30, source: "counted elsewhere, by hand" };
    const row = requestsRow({ adapter: "E2B", total: 12, minimum: 8, rows, peers: [measured, external] });
    assert.equal(
      row,
      "| E2B | 12 | 8 | +4 | launch +1, read +2, destroy +1 | ComputeSDK 27 (measured); X 30 (external figure) |",
    );
    const cells = (line: string) => line.split("|").length;
    assert.equal(cells(row), cells(REQUESTS_HEADER[0]!));
    const exact = phaseRows({ launch: 1, write: 1, exec: 3, read: 2, destroy: 1 }, E2B_MINIMUM);
    assert.equal(requestsRow({ adapter: "E2B", total: 8, minimum: 8, rows: exact }), "| E2B | 8 | 8 | +0 | — | — |");
  });

  test("the large-file row gives the bytes on the wire as a multiple of the file", () => {
    const size = 64 * 2 ** 20;
    const row = largeFileRow({
      adapter: "E2B",
      size,
      write: { bytes: size * 1.5, ms: 2000.4 },
      read: { bytes: size, ms: 999.6 },
    });
    assert.equal(row, "| E2B | 64.0 MiB | 96.0 MiB (1.50×) | 2000 ms | 64.0 MiB (1.00×) | 1000 ms |");
    const failed = largeFileRow({
      adapter: "K",
      size,
      error: "PROVIDER_UNAVAILABLE: the stream of process 1a2b broke",
    });
    assert.equal(failed, "| K | 64.0 MiB | not transferred (PROVIDER_UNAVAILABLE) | — | — | — |");
  });

  test("the timing row is the ratio of the medians, current over baseline", () => {
    assert.equal(median([5, 1, 3]), 3);
    assert.equal(median([4, 1, 3, 2]), 2.5);
    assert.throws(() => median([]), /no values/);
    assert.equal(
      timingRow({ adapter: "E2B", current: [900, 800, 1000], baseline: [1000, 1200, 1100], rounds: 3 }),
      "| E2B | 900 ms | 1100 ms | 0.82 | 3 |",
    );
    assert.equal(timingRow({ adapter: "K", current: [10], rounds: 1 }), "| K | 10 ms | — | — | 1 |");
  });

  test("a phase's routes are folded: runs of one route, or a tally when the runs are many", () => {
    assert.equal(foldRoutes(["POST /a", "GET /b", "GET /b", "DELETE /a"]), "POST /a, GET /b ×2, DELETE /a");
    const interleaved = Array.from({ length: 10 }, (_, index) => (index % 2 ? "wait" : "start"));
    assert.equal(foldRoutes(interleaved), "start ×5, wait ×5");
    assert.equal(foldRoutes([]), "");
  });
});
