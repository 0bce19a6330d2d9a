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

test("an unknown option, or an unknown timeout, is refused naming it and the nearest known key", () => {
  const read = new OptionReader("DemoRuntime", "demo");
  const known = ["root", "owner", "timeouts"];
  const typo = refusal(() => read.object({ roto: "/x" } as object, known));
  assert.equal(typo.code, "INVALID_REQUEST");
  assert.equal(typo.message, "DemoRuntime option roto is unknown (did you mean root?)");
  assert.deepEqual(typo.details, { field: "roto", nearest: "root" });
  const far = refusal(() => read.object({ frobnicate: 1 } as object, known));
  assert.equal(far.message, "DemoRuntime option frobnicate is unknown (known: root, owner, timeouts)");
  const timeout = refusal(() => read.common({ timeouts: { lanchMs: 5 } as object }, defaults));
  assert.equal(timeout.message, "DemoRuntime option timeouts.lanchMs is unknown (did you mean timeouts.launchMs?)");
  assert.equal(timeout.details.field, "timeouts.lanchMs");
  assert.deepEqual(read.object({ root: "/x" }, known), { root: "/x" });
  assert.deepEqual(read.object(undefined, known), {});
});

test("a number option given a string says it got a string", () => {
  const read = new OptionReader("DemoRuntime", "demo");
  assert.match(
    refusal(() => read.common({ runBudgetMs: "1000" as never }, defaults)).message,
    /runBudgetMs must be a number, got string "1000"/,
  );
  assert.match(
    refusal(() => read.integer("5", "pageSize", 1, 100)).message,
    /pageSize must be an integer from 1 to 100, got string "5"/,
  );
  assert.match(refusal(() => read.boolean("true", "keep")).message, /keep must be a boolean, got string "true"/);
});
