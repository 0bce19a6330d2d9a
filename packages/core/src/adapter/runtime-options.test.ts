// OptionReader: one refusal format for every option, whichever validator checks it.
import assert from "node:assert/strict";
import { test } from "node:test";
import { SandportError } from "../errors/sandport-error.js";
import type { OperationTimeouts } from "../timing/operation-timeouts.js";
import { OptionReader, remoteTimeouts } from "./runtime-options.js";

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

test("remote: the shared remote options with their defaults, and only the extras given defaults", () => {
  const read = new OptionReader("DemoRuntime", "demo");
  const bare = read.remote({}, { timeouts, network: false });
  assert.deepEqual(bare, {
    owner: "sandport",
    runBudgetMs: 600_000,
    maxOutputBytes: 16 * 1024 * 1024,
    timeouts,
    network: false,
    orphanCleanupMs: 120_000,
  });
  const full = read.remote(
    { network: true, orphanCleanupMs: 5, workspaceRoot: "/w//x/", lifetimeMs: 7, listPageSize: 9 },
    { ...defaults, network: false, workspaceRoot: "/ws", lifetimeMs: 1, listPageSize: { max: 10, fallback: 3 } },
  );
  assert.deepEqual(full, {
    owner: "sandport",
    runBudgetMs: 1_000,
    maxOutputBytes: 1_000,
    timeouts,
    network: true,
    orphanCleanupMs: 5,
    workspaceRoot: "/w/x",
    lifetimeMs: 7,
    listPageSize: 9,
  });
  const fallback = read.remote(
    {},
    { timeouts, network: true, workspaceRoot: "/ws", listPageSize: { max: 10, fallback: 3 } },
  );
  assert.equal(fallback.workspaceRoot, "/ws");
  assert.equal(fallback.listPageSize, 3);
  assert.equal("lifetimeMs" in fallback, false);
});

test("remote: each shared option is refused in the reader's format", () => {
  const read = new OptionReader("DemoRuntime", "demo");
  const given = {
    timeouts,
    network: true,
    workspaceRoot: "/ws",
    lifetimeMs: 1,
    listPageSize: { max: 10, fallback: 3 },
  };
  const cases: [string, object, string][] = [
    ["network", { network: "yes" }, 'must be a boolean, got string "yes"'],
    ["orphanCleanupMs", { orphanCleanupMs: -1 }, ""],
    ["onBackgroundError", { onBackgroundError: "log" }, "must be a function"],
    ["workspaceRoot", { workspaceRoot: "ws" }, "must be an absolute path"],
    ["lifetimeMs", { lifetimeMs: 0 }, ""],
    ["listPageSize", { listPageSize: 11 }, "must be an integer from 1 to 10, got number 11"],
    ["owner", { owner: "a b" }, "must be 1-64 characters of [A-Za-z0-9._-]"],
  ];
  for (const [field, options, why] of cases) {
    const error = refusal(() => read.remote(options, given));
    assert.equal(error.code, "INVALID_REQUEST", field);
    assert.equal(error.details.field, field);
    assert.ok(error.message.startsWith(`DemoRuntime option ${field} ${why}`), error.message);
  }
});

test("remoteTimeouts: the runtime's launch and lifecycle deadlines, the shared rest, frozen", () => {
  const own = remoteTimeouts({ launchMs: 1, lifecycleMs: 2 });
  assert.deepEqual(own, {
    launchMs: 1,
    lookupMs: 60_000,
    fileMs: 120_000,
    destroyMs: 60_000,
    lifecycleMs: 2,
    execGraceMs: 30_000,
  });
  assert.ok(Object.isFrozen(own));
});
