// deadlineSignal: a deadline and the caller's signals in one signal that garbage collection cannot take early.
import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import { test } from "node:test";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { deadlineSignal } from "./deadline-signal.js";

setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;

/** Resolves with the reason `make()`'s signal aborts with, holding nothing of it but its own listener. */
function abortedReason(make: () => AbortSignal): Promise<unknown> {
  return new Promise((resolve) =>
    make().addEventListener("abort", (event) => resolve((event.target as AbortSignal).reason)),
  );
}

test("the deadline fires although nothing but its own listener holds the signal, collections running all along", async () => {
  const caller = new AbortController();
  const collecting = setInterval(collectGarbage, 5);
  try {
    const started = performance.now();
    const outcome = await Promise.race([
      abortedReason(() => deadlineSignal(100, caller.signal)),
      new Promise((resolve) => setTimeout(resolve, 2_000, "never fired")),
    ]);
    assert.ok(outcome instanceof DOMException, `aborted with a DOMException, not ${String(outcome)}`);
    assert.equal(outcome.name, "TimeoutError");
    assert.ok(performance.now() - started >= 95, "not before its time");
  } finally {
    clearInterval(collecting);
  }
});

test("a source that aborts first ends it with that source's reason, and its listeners leave every source", async () => {
  const first = new AbortController();
  const second = new AbortController();
  const signal = deadlineSignal(60_000, first.signal, undefined, second.signal);
  assert.equal(getEventListeners(first.signal, "abort").length, 1);
  const reason = new Error("the caller gave up");
  second.abort(reason);
  assert.equal(signal.aborted, true);
  assert.equal(signal.reason, reason);
  assert.equal(getEventListeners(first.signal, "abort").length, 0);
  assert.equal(getEventListeners(second.signal, "abort").length, 0);
});

test("a source aborted already ends it at once; the deadline's end releases the sources too", async () => {
  const reason = new Error("over before it began");
  assert.equal(deadlineSignal(60_000, AbortSignal.abort(reason)).reason, reason);
  const caller = new AbortController();
  const signal = deadlineSignal(1, caller.signal);
  await new Promise((resolve) => signal.addEventListener("abort", resolve));
  assert.equal(getEventListeners(caller.signal, "abort").length, 0);
  assert.equal(caller.signal.aborted, false, "the caller's own signal is untouched");
});
