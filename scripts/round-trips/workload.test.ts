// Another library's count is a constant the round-trip scripts print, not a measurement: each one
// must say where it came from, and the report must print it as an external figure.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { checkExternalFigure, countRoundTrips } from "./workload.mjs";

const folder = fileURLToPath(new URL(".", import.meta.url));

describe("external figures in the round-trip report", () => {
  test("a figure without its source is refused before the workload runs", async () => {
    assert.throws(() => checkExternalFigure({ name: "ComputeSDK", requests: 28 }), /must say where it came from/);
    assert.throws(() => checkExternalFigure({ name: "", requests: 28, source: "x".repeat(30) }), /needs a name/);
    // The runtime is never touched: the refusal comes first.
    await assert.rejects(
      countRoundTrips({
        title: "t",
        runtime: undefined,
        routes: () => [],
        apiMinimum: 1,
        peers: [{ name: "P", requests: 1 }],
      }),
      /must say where it came from/,
    );
  });

  test("every provider script's peer figures carry a source", () => {
    const scripts = readdirSync(folder).filter((file) => file.endsWith(".mjs") && file !== "workload.mjs");
    for (const file of scripts) {
      const text = readFileSync(`${folder}/${file}`, "utf8");
      const peers = (text.match(/peers:/g) ?? []).length;
      const sources = (text.match(/\bsource:/g) ?? []).length;
      assert.equal(sources, peers, `${file}: every peer figure needs a source`);
    }
  });
});
