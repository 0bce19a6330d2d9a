// The deadline middleware on a fake call chain: what it puts on each
// control-plane call inside a scope, and that it changes nothing outside one.
import assert from "node:assert/strict";
import { test } from "node:test";
import { deadlineMiddleware, inScope } from "./call-scope.js";
import type { ModalCallOptions } from "./sdk-types.js";

/** Runs the middleware on one call with `options`; resolves with the options the next link received. */
async function passOn(options: ModalCallOptions): Promise<ModalCallOptions> {
  let seen: ModalCallOptions | undefined;
  const call = {
    request: {},
    method: { path: "/modal.client.ModalClient/SandboxTagsGetV2" },
    // biome-ignore lint/correctness/useYield: the chain's last link answers without streaming.
    async *next(_request: unknown, given: ModalCallOptions) {
      seen = given;
      return "answer";
    },
  };
  const generator = deadlineMiddleware(call, options);
  const last = await generator.next();
  assert.deepEqual(last, { done: true, value: "answer" });
  return seen as ModalCallOptions;
}

test("outside a scope, a call passes unchanged", async () => {
  const options = { timeoutMs: 5_000, retries: 3 };
  assert.deepEqual(await passOn(options), options);
});

test("inside a scope: the remaining time (or the SDK's own, if shorter), the signal, and the retries if unset", async () => {
  const controller = new AbortController();
  const scope = { remainingMs: () => 1_234, signal: controller.signal, retries: 0 };
  const plain = await inScope(scope, () => passOn({}));
  assert.deepEqual(plain, { timeoutMs: 1_234, signal: controller.signal, retries: 0 });
  const own = await inScope(scope, () => passOn({ timeoutMs: 500, retries: 3 }));
  assert.equal(own.timeoutMs, 500, "the SDK's shorter deadline stays");
  assert.equal(own.retries, 3, "the SDK's own retry count stays");
  const longer = await inScope(scope, () => passOn({ timeoutMs: 9_000 }));
  assert.equal(longer.timeoutMs, 1_234);
});

test("the scope's signal and the call's own both cancel it; a spent budget still gives 1 ms, not none", async () => {
  const mine = new AbortController();
  const theirs = new AbortController();
  const combined = await inScope({ remainingMs: () => 0, signal: mine.signal }, () =>
    passOn({ signal: theirs.signal }),
  );
  assert.equal(combined.timeoutMs, 1);
  assert.equal(combined.signal?.aborted, false);
  theirs.abort();
  assert.equal(combined.signal?.aborted, true);
  const noSignal = await inScope({ remainingMs: () => 50 }, () => passOn({}));
  assert.equal(noSignal.signal, undefined, "a scope without a signal (a create) adds none");
});
