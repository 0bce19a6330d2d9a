import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { SandportError } from "../errors/sandport-error.js";
import { createCallBudget } from "./adapter-context.js";
import { FakeContext } from "./fake-context.js";

describe("AdapterContext", () => {
  test("assertOwned: ours passes and is remembered, foreign is FOREIGN_SANDBOX, missing is NOT_FOUND", async () => {
    const context = new FakeContext();
    context.add("a");
    context.add("b", "someone-else");
    await context.assertOwned("a", "exec", createCallBudget(1_000));
    await context.assertOwned("a", "exec", createCallBudget(1_000));
    assert.equal(context.describes, 1, "a known sandbox is not looked up again");
    const foreign = await context.assertOwned("b", "exec", createCallBudget(1_000)).catch((error: unknown) => error);
    assert.ok(SandportError.hasCode(foreign, "FOREIGN_SANDBOX"));
    const missing = await context.assertOwned("c", "exec", createCallBudget(1_000)).catch((error: unknown) => error);
    assert.ok(SandportError.hasCode(missing, "NOT_FOUND"));
  });

  test("instance: concurrent callers share one ownership check and one connect; a failed connect is retried", async () => {
    const context = new FakeContext();
    context.add("a");
    let open: () => void = () => {};
    context.connectGate = new Promise((resolve) => {
      open = resolve;
    });
    const both = Promise.all([
      context.instance("a", "exec", createCallBudget(1_000)),
      context.instance("a", "readFile", createCallBudget(1_000)),
    ]);
    open();
    const [first, second] = await both;
    assert.equal(first, second);
    assert.deepEqual([context.describes, context.connects], [1, 1]);
    context.forget("a", { keepOwnership: true });
    context.failConnect = true;
    await assert.rejects(context.instance("a", "exec", createCallBudget(1_000)));
    context.failConnect = false;
    await context.instance("a", "exec", createCallBudget(1_000));
    assert.equal(context.connects, 3, "the failed connect was not kept");
  });

  test("onInstance refuses a bad handle before any request, and names the sandbox in mapped errors", async () => {
    const context = new FakeContext();
    const refused = await context
      .onInstance({}, undefined, "exec", 1_000, async () => "ran")
      .catch((error: unknown) => error);
    assert.ok(SandportError.hasCode(refused, "INVALID_REQUEST"));
    assert.equal(context.describes, 0);
    const missing = await context
      .onInstance({ id: "x" }, undefined, "exec", 1_000, async () => "ran")
      .catch((error: unknown) => error);
    assert.ok(SandportError.hasCode(missing, "NOT_FOUND"));
    assert.equal(missing.details.sandboxId, "x");
  });

  test("remember keeps an instance without a connect; forget drops ownership unless kept", async () => {
    const context = new FakeContext();
    context.remember("n", { id: "n" });
    assert.deepEqual(await context.instance("n", "exec", createCallBudget(1_000)), { id: "n" });
    assert.equal(context.connects + context.describes, 0);
    context.forget("n");
    assert.equal(context.known.isOwned("n"), false);
  });

  test("forget releases the connected instance it drops, once; a sandbox without one releases nothing", async () => {
    const context = new FakeContext();
    context.add("a");
    const connected = await context.instance("a", "exec", createCallBudget(1_000));
    context.forget("a", { keepOwnership: true });
    context.forget("a");
    context.forget("never-connected");
    await Promise.resolve();
    assert.deepEqual(context.released, [connected]);
  });

  test("reclaimLaunch: an abandoned create is destroyed in the background, its key hidden meanwhile", async () => {
    const context = new FakeContext();
    const destroyed: string[] = [];
    let finish: (made: { id: string }) => void = () => {};
    const creation = new Promise<{ id: string }>((resolve) => {
      finish = resolve;
    });
    const error = new SandportError({ code: "ABORTED", provider: "fake", retryable: false, message: "gave up" });
    context.reclaimLaunch(
      { creation, idOf: (made) => made.id, launchKey: "k", error, created: false },
      {
        destroy: async (sandboxId) => void destroyed.push(sandboxId),
        findByLaunchKey: async () => [],
        cleanupMs: 5_000,
      },
    );
    assert.equal(context.isCondemned({ "sandport.launch-key": "k" }), true);
    finish({ id: "late" });
    assert.deepEqual(await context.background.settle(), []);
    assert.deepEqual(destroyed, ["late"]);
    assert.equal(context.isCondemned({ "sandport.launch-key": "k" }), false);
  });

  test("isCondemned reads the launch key label", () => {
    const context = new FakeContext();
    context.condemned.add("k1");
    assert.equal(context.isCondemned({ "sandport.launch-key": "k1" }), true);
    assert.equal(context.isCondemned({ "sandport.launch-key": "k2" }), false);
    assert.equal(context.isCondemned(undefined), false);
  });
});
