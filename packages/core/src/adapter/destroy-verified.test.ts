import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { SandportError } from "../errors/sandport-error.js";
import type { CallBudget } from "./adapter-context.js";
import { destroyVerified, VERIFY_MARGIN_MS } from "./destroy-verified.js";
import { FakeContext } from "./fake-context.js";

/** The fake provider's delete and look, counting deletes; `lingers` keeps a deleted sandbox listed. */
function primitives(context: FakeContext, lingers = false) {
  const deleted: string[] = [];
  return {
    deleted,
    timeoutMs: 1_000,
    remove: async (sandboxId: string) => {
      deleted.push(sandboxId);
      const found = context.sandboxes.has(sandboxId);
      if (!lingers) context.sandboxes.delete(sandboxId);
      return found;
    },
    exists: async (sandboxId: string) => context.sandboxes.has(sandboxId),
  };
}

describe("destroyVerified", () => {
  test("deletes, confirms gone, and forgets the sandbox", async () => {
    const context = new FakeContext();
    context.add("a");
    context.remember("a");
    const vendor = primitives(context);
    await destroyVerified(context, { id: "a" }, undefined, vendor);
    assert.deepEqual(vendor.deleted, ["a"]);
    assert.equal(context.known.isOwned("a"), false);
  });

  test("an unseen foreign sandbox is FOREIGN_SANDBOX and never deleted", async () => {
    const context = new FakeContext();
    context.add("f", "someone-else");
    const vendor = primitives(context);
    const error = await destroyVerified(context, { id: "f" }, undefined, vendor).catch((caught: unknown) => caught);
    assert.ok(SandportError.hasCode(error, "FOREIGN_SANDBOX"));
    assert.deepEqual(vendor.deleted, []);
  });

  test("an absent sandbox counts as destroyed, without a delete", async () => {
    const context = new FakeContext();
    const vendor = primitives(context);
    await destroyVerified(context, { id: "gone" }, undefined, vendor);
    assert.deepEqual(vendor.deleted, []);
  });

  test("a sandbox still listed at the deadline is DESTROY_UNVERIFIED, saying why", async () => {
    const context = new FakeContext();
    context.add("a");
    const vendor = primitives(context, true);
    const error = await destroyVerified(context, { id: "a" }, { timeoutMs: 900 }, vendor).catch((e: unknown) => e);
    assert.ok(SandportError.hasCode(error, "DESTROY_UNVERIFIED"));
    assert.match(error.message, /still listed/);
    assert.equal(error.retryable, true);
  });

  test("a look that outlasts the verification window is cut off there: DESTROY_UNVERIFIED, not a bare deadline", async () => {
    const context = new FakeContext();
    context.add("a");
    const budgets: number[] = [];
    const vendor = {
      ...primitives(context, true),
      // A look that ignores its signal and never answers, as an SDK waiting between its own retries.
      exists: (_sandboxId: string, budget: CallBudget) => {
        budgets.push(budget.remainingMs());
        assert.ok(budget.signal, "each look gets a signal that fires at the end of the window");
        return new Promise<boolean>(() => {});
      },
    };
    const error = await destroyVerified(context, { id: "a" }, { timeoutMs: 900 }, vendor).catch((e: unknown) => e);
    assert.ok(SandportError.hasCode(error, "DESTROY_UNVERIFIED"), String(error));
    assert.match(error.message, /check failed/);
    assert.equal(budgets.length, 1);
    assert.ok((budgets[0] ?? Infinity) <= 900 - VERIFY_MARGIN_MS, "the look's budget ends with the window");
  });

  test("without an exists look, the context's describe is the look", async () => {
    const context = new FakeContext();
    context.add("a");
    context.remember("a");
    const { exists: _unused, ...vendor } = primitives(context, true);
    const describes = context.describes;
    const error = await destroyVerified(context, { id: "a" }, { timeoutMs: VERIFY_MARGIN_MS + 200 }, vendor).catch(
      (caught: unknown) => caught,
    );
    assert.ok(SandportError.hasCode(error, "DESTROY_UNVERIFIED"), "still described after the delete");
    assert.ok(context.describes > describes);
    context.add("b");
    context.remember("b");
    const { exists: _gone, ...clean } = primitives(context);
    await destroyVerified(context, { id: "b" }, undefined, clean);
    assert.equal(context.known.isOwned("b"), false);
  });
});
