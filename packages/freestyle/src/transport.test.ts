// The per-call transport: every request carries the call's signal and ends at
// its deadline; once the call has ended nothing more is sent, and the answer
// given instead is an API error the SDK stops on.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { createCallBudget as budget } from "@sandport/core/adapter";
import { delay } from "@sandport/testkit/assertions";
import { callFetch } from "./transport.js";

// The hanging requests below hold no socket, and AbortSignal.timeout's timer does not keep the process alive.
const keepAlive = setInterval(() => {}, 1_000);
after(() => clearInterval(keepAlive));

/** A transport that records each request's signal and answers when that signal fires (or never). */
function hangingTransport() {
  const signals: AbortSignal[] = [];
  const transport: typeof fetch = (_input, init) => {
    const signal = init?.signal as AbortSignal;
    signals.push(signal);
    return new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true }));
  };
  return { signals, transport };
}

test("a request ends with the call's signal, and at the call's deadline without one", async () => {
  const { signals, transport } = hangingTransport();
  const controller = new AbortController();
  const reason = new Error("caller gave up");
  const aborted = callFetch(transport, { remainingMs: () => 60_000, signal: controller.signal })("http://x/v5/vms");
  controller.abort(reason);
  await assert.rejects(aborted, (error) => error === reason);
  const started = performance.now();
  await assert.rejects(callFetch(transport, budget(100))("http://x/v5/vms"), { name: "TimeoutError" });
  assert.ok(performance.now() - started < 1_000);
  assert.equal(signals.length, 2);
});

test("the SDK's own signal (its poll timeout) still applies alongside the call's", async () => {
  const { transport } = hangingTransport();
  const own = new AbortController();
  const request = callFetch(transport, budget(60_000))("http://x/v5/background-requests/br_1", { signal: own.signal });
  own.abort(new Error("poll timeout"));
  await assert.rejects(request, /poll timeout/);
});

test("after the call has ended, nothing is sent: the answer is a final 504 SANDPORT_CALL_ENDED", async () => {
  let sent = 0;
  const transport: typeof fetch = async () => {
    sent++;
    return new Response("{}");
  };
  const controller = new AbortController();
  const bound = callFetch(transport, { remainingMs: () => 60_000, signal: controller.signal });
  assert.equal((await bound("http://x/a")).status, 200);
  controller.abort(new Error("done"));
  const ended = await bound("http://x/b");
  assert.equal(ended.status, 504);
  assert.equal(ended.headers.get("x-freestyle-background-request-id"), "SANDPORT_CALL_ENDED");
  assert.deepEqual(await ended.json(), {
    code: "SANDPORT_CALL_ENDED",
    message: "the Sandport call that made this request has ended; nothing was sent",
  });
  const expired = callFetch(transport, budget(1));
  await delay(5);
  assert.equal((await expired("http://x/c")).status, 504);
  assert.equal(sent, 1);
});
