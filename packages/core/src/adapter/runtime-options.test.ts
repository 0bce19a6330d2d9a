// OptionReader: one refusal format for every option, whichever validator checks it.
import assert from "node:assert/strict";
import { test } from "node:test";
import { SandportError } from "../errors/sandport-error.js";
import type { OperationTimeouts } from "../timing/operation-timeouts.js";
import { OptionReader } from "./runtime-options.js";

const timeouts: OperationTimeouts = {
  launchMs: 1_000,
  lookupMs: 1_000,
  fileMs: 1_000,
  destroyMs: 1_000,
  lifecycleMs: 1_000,
  execGraceMs: 1_000,
};
const defaults = { runBudgetMs: 1_000, maxOutputBytes: 1_000, timeouts };

function refusal(check: () => unknown): SandportError {
  try {
    check();
  } catch (error) {
    assert.ok(SandportError.isInstance(error));
    return error;
  }
  return assert.fail("expected a refusal");
}

test("every refusal is INVALID_REQUEST, '<Runtime> option <field> ...', with the bare field in details", () => {
  const read = new OptionReader("DemoRuntime", "demo");
  const cases: [string, () => unknown][] = [
    ["timeouts.fileMs", () => read.common({ timeouts: { fileMs: -1 } }, defaults)],
    ["runBudgetMs", () => read.common({ runBudgetMs: 1.5 }, defaults)],
    ["maxOutputBytes", () => read.common({ maxOutputBytes: 0 }, defaults)],
    ["maxOutputBytes", () => read.common({ maxOutputBytes: 2 ** 40 }, defaults)],
    ["owner", () => read.common({ owner: "a b" }, defaults)],
    ["lifetimeMs", () => read.durationMs(0, "lifetimeMs")],
    ["pageSize", () => read.integer(101, "pageSize", 1, 100)],
    ["root", () => read.absolutePath("relative", "root")],
    ["root", () => read.absolutePath("/a/../b", "root")],
    ["onBackgroundError", () => read.callback("log" as never, "onBackgroundError")],
  ];
  for (const [field, check] of cases) {
    const error = refusal(check);
    assert.equal(error.code, "INVALID_REQUEST", field);
    assert.equal(error.provider, "demo");
    assert.equal(error.details.field, field);
    assert.ok(error.message.startsWith(`DemoRuntime option ${field} `), error.message);
  }
});

test("valid values pass through, defaults fill the rest", () => {
  const read = new OptionReader("DemoRuntime", "demo");
  const resolved = read.common({ owner: "ci", timeouts: { fileMs: 5 }, maxOutputBytes: 10 }, defaults);
  assert.deepEqual(resolved, {
    owner: "ci",
    runBudgetMs: 1_000,
    maxOutputBytes: 10,
    timeouts: { ...timeouts, fileMs: 5 },
  });
  assert.equal(read.durationMs(undefined, "lifetimeMs"), undefined);
  const hook = () => {};
  assert.equal(read.callback(hook, "onBackgroundError"), hook);
  assert.equal(read.callback(undefined, "fetch"), undefined);
});
