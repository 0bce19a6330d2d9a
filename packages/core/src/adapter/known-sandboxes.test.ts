import assert from "node:assert/strict";
import { test } from "node:test";
import { KnownSandboxes } from "./known-sandboxes.js";

test("KnownSandboxes: owned, pristine until a command runs, forgotten with or without ownership", () => {
  const known = new KnownSandboxes();
  known.markPristine("a");
  assert.deepEqual([known.isOwned("a"), known.isPristine("a")], [true, true]);
  known.markCommandRun("a");
  assert.equal(known.isPristine("a"), false);
  known.markOwned("b");
  assert.deepEqual([known.isOwned("b"), known.isPristine("b")], [true, false]);
  known.markPristine("c");
  known.forget("c", { keepOwnership: true });
  assert.deepEqual([known.isOwned("c"), known.isPristine("c")], [true, false]);
  known.forget("c");
  assert.equal(known.isOwned("c"), false);
});
