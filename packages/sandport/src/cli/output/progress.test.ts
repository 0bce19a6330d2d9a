// Progress off a terminal (a CI log, a pipe): one plain line per step and per logged line, each written once.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Progress } from "./progress.js";
import { Terminal } from "./terminal.js";

function offTerminal() {
  const written = { stdout: "", stderr: "" };
  const terminal = new Terminal(
    { write: (text: string) => (written.stdout += text) },
    { write: (text: string) => (written.stderr += text), isTTY: false },
    { NO_COLOR: "1" },
  );
  return { written, terminal };
}

describe("Progress off a terminal", () => {
  test("a step's line is written once, however many lines are logged during it", () => {
    const { written, terminal } = offTerminal();
    const progress = new Progress(terminal);
    progress.step("conformance suite");
    progress.log("  ✔ files");
    progress.log("  ✔ exec");
    progress.update("conformance: 2 passed");
    progress.done("conformance: 2 passed, 0 failed");
    assert.equal(written.stderr, "… conformance suite\n  ✔ files\n  ✔ exec\n✔ conformance: 2 passed, 0 failed\n");
    assert.equal(written.stdout, "", "never on stdout");
  });

  test("quiet writes nothing", () => {
    const { written, terminal } = offTerminal();
    const progress = new Progress(terminal, { quiet: true });
    progress.step("listing");
    progress.log("a line");
    progress.done("listed");
    assert.deepEqual(written, { stdout: "", stderr: "" });
  });
});
