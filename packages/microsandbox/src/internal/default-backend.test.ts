// The gate around the SDK's process-wide default backend, driven with a fake
// native scope that records what is the default when each call reads it.
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectCode } from "@sandport/testkit/assertions";
import { type BackendBinding, BackendGate, backendGate } from "./default-backend.js";
import type { MsbBackendScope } from "./sdk-types.js";

/** The native scope as a stack of pushed backends (the SDK restores by token), starting at `local`. */
class FakeScope implements MsbBackendScope {
  readonly stack: { token: number; backend: string }[] = [];
  #next = 1;
  pushDefaultBackend(kind: string, url?: string | null, apiKey?: string | null): number {
    const token = this.#next++;
    this.stack.push({ token, backend: kind === "cloud" ? `${url}|${apiKey}` : "local" });
    return token;
  }
  popDefaultBackend(token: number): void {
    assert.equal(this.stack.at(-1)?.token, token, "pops in the order of the pushes");
    this.stack.pop();
  }
  /** What a call reading the default now would use. */
  get current(): string {
    return this.stack.at(-1)?.backend ?? "process default";
  }
}

const A: BackendBinding = { kind: "cloud", url: "http://a", apiKey: "key-a" };
const B: BackendBinding = { kind: "cloud", url: "http://b", apiKey: "key-b" };
const LOCAL: BackendBinding = { kind: "local" };

/** A call that reads the default only after `ms` (as the SDK's worker thread does), then records it. */
function lateRead(scope: FakeScope, seen: string[], ms: number): () => Promise<string> {
  return async () => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    seen.push(scope.current);
    return scope.current;
  };
}

test("a call's backend stays the default until the call settles, then the previous default is back", async () => {
  const gate = new BackendGate();
  const scope = new FakeScope();
  const seen: string[] = [];
  assert.equal(await gate.run(scope, A, lateRead(scope, seen, 20)), "http://a|key-a");
  assert.equal(scope.current, "process default");
  assert.equal(await gate.run(scope, LOCAL, lateRead(scope, seen, 5)), "local");
  assert.equal(scope.current, "process default");
  assert.equal(gate.busy, false);
});

test("calls on one backend run together; calls on another wait their turn and never see the wrong default", async () => {
  const gate = new BackendGate();
  const scope = new FakeScope();
  const order: string[] = [];
  const call = (binding: BackendBinding, label: string, ms: number) =>
    gate.run(scope, binding, async () => {
      order.push(`${label} start`);
      const expected = binding.kind === "cloud" ? `${binding.url}|${binding.apiKey}` : "local";
      await new Promise((resolve) => setTimeout(resolve, ms));
      assert.equal(scope.current, expected, `${label} read the wrong backend`);
      order.push(`${label} end`);
    });
  await Promise.all([call(A, "a1", 30), call(A, "a2", 10), call(B, "b1", 10), call(A, "a3", 5), call(B, "b2", 5)]);
  assert.deepEqual(order.slice(0, 2), ["a1 start", "a2 start"], "a1 and a2 share A");
  assert.ok(order.indexOf("b1 start") > order.indexOf("a1 end"), "b1 waited for A's calls");
  assert.ok(order.indexOf("a3 start") > order.indexOf("b1 end"), "a3 came after b1 (it arrived later): no starvation");
  assert.ok(order.indexOf("b2 start") > order.indexOf("b1 start"), "b2 kept its turn behind a3 or ran with b1");
  assert.equal(scope.stack.length, 0, "every push was popped");
});

test("a failing call still restores the default; a waiting call whose signal fires is dropped, never made", async () => {
  const gate = new BackendGate();
  const scope = new FakeScope();
  await assert.rejects(
    gate.run(scope, A, async () => {
      throw new Error("refused");
    }),
    /refused/,
  );
  assert.equal(scope.stack.length, 0);
  let release: () => void = () => {};
  const holding = gate.run(scope, A, () => new Promise<void>((resolve) => (release = resolve)));
  const controller = new AbortController();
  let made = false;
  const waiting = gate.run(
    scope,
    B,
    async () => {
      made = true;
    },
    controller.signal,
  );
  controller.abort(new Error("the caller gave up"));
  const error = await expectCode(waiting, "ABORTED");
  assert.equal((error.cause as Error).message, "the caller gave up");
  release();
  await holding;
  assert.equal(made, false, "an aborted waiter makes no call");
  assert.equal(scope.stack.length, 0);
  const gone = new AbortController();
  gone.abort(new Error("already"));
  await expectCode(
    gate.run(scope, A, async () => undefined, gone.signal),
    "ABORTED",
  );
});

test("one gate per process, on globalThis, so every copy of the package shares it", () => {
  assert.equal(backendGate(), backendGate());
  assert.equal(
    (globalThis as Record<symbol, unknown>)[Symbol.for("@sandport/microsandbox.backend-gate")],
    backendGate(),
  );
});
