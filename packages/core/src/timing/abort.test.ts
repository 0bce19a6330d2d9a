import assert from "node:assert/strict";
import { test } from "node:test";
import { SandportError } from "../errors/sandport-error.js";
import { pause, sleep } from "./abort.js";

test("pause resolves after its time when nothing aborts", async () => {
  await pause(1, new AbortController().signal);
});

test("pause rejects with the signal's own reason, before and during the wait; sleep with ABORTED", async () => {
  const deadline = new SandportError({ code: "DEADLINE_EXCEEDED", message: "the call's budget ran out" });
  const fired = new AbortController();
  fired.abort(deadline);
  await assert.rejects(pause(60_000, fired.signal), (error) => error === deadline);
  const later = new AbortController();
  const waiting = pause(60_000, later.signal);
  later.abort(deadline);
  await assert.rejects(waiting, (error) => error === deadline);
  await assert.rejects(sleep(60_000, fired.signal), (error) => SandportError.hasCode(error, "ABORTED"));
});
