import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { SandportError } from "../errors/sandport-error.js";
import type { CallBudget } from "./adapter-context.js";
import { DeletePace } from "./delete-pace.js";
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

  test("with a pace, the first look waits its estimate, and a delete that took longer teaches it", async () => {
    const context = new FakeContext();
    const pace = new DeletePace({ initialMs: 100 });
    // A delete the provider accepts at once and finishes `goneAfterMs` later; each look is timed.
    const slowDelete = (sandboxId: string, goneAfterMs: number) => {
      context.add(sandboxId);
      context.remember(sandboxId);
      const looks: number[] = [];
      let accepted = 0;
      const vendor = {
        timeoutMs: 5_000,
        pace,
        remove: async () => {
          accepted = Date.now();
          setTimeout(() => context.sandboxes.delete(sandboxId), goneAfterMs);
          return true;
        },
        exists: async () => {
          looks.push(Date.now() - accepted);
          return context.sandboxes.has(sandboxId);
        },
      };
      return { looks, run: () => destroyVerified(context, { id: sandboxId }, undefined, vendor) };
    };
    const quick = slowDelete("quick", 20);
    await quick.run();
    assert.equal(quick.looks.length, 1, "gone by the first look");
    assert.ok((quick.looks[0] ?? 0) >= 90, `the first look waited the estimate, not 0 (${quick.looks[0]} ms)`);
    const slow = slowDelete("slow", 400);
    await slow.run();
    assert.ok(slow.looks.length > 1, "a delete slower than the estimate is looked at until it is gone");
    assert.ok(pace.firstLookMs() >= 400, `the estimate grew to what was seen (${pace.firstLookMs()} ms)`);
    const next = slowDelete("next", 300);
    await next.run();
    assert.equal(next.looks.length, 1, "the next delete of that pace needs one look");
  });

  test("a pace's first look stays within half the verification window", async () => {
    const context = new FakeContext();
    context.add("a");
    context.remember("a");
    const looks: number[] = [];
    const started = Date.now();
    const vendor = {
      ...primitives(context, true),
      pace: new DeletePace({ initialMs: 5_000 }),
      exists: async (sandboxId: string) => {
        looks.push(Date.now() - started);
        return context.sandboxes.has(sandboxId);
      },
    };
    const error = await destroyVerified(context, { id: "a" }, { timeoutMs: 1_000 }, vendor).catch((e: unknown) => e);
    assert.ok(SandportError.hasCode(error, "DESTROY_UNVERIFIED"));
    assert.ok(looks.length >= 1, "a look was made before the deadline");
    assert.ok((looks[0] ?? Infinity) < 1_000 - VERIFY_MARGIN_MS);
  });
});
