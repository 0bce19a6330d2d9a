// Commands that outlive the API's synchronous window, through the real
// freestyle SDK against the emulator (which answers 202 after 300 ms here, not
// the SDK's 5 s): the SDK polls the backgrounded request every 2 s and the
// runtime follows it to the end within the caller's deadline. When the caller
// gives up, the call rejects at once, the SDK's polling stops without another
// request, and the command, which the API runs detached from the request, is
// killed by its marker.
import assert from "node:assert/strict";
import { test } from "node:test";
import { delay, expectCode } from "@sandport/testkit/assertions";
import { emulated } from "../test/emulated.js";

const EXEC = "POST /v5/vms/:id/exec-await";
const POLL = "GET /v5/background-requests/:requestId";

const { emulator, runtime } = await emulated({ owner: "long-exec" }, { backgroundAfterMs: 300 });
const handle = await runtime.launch();
const exists = async (path: string) => (await runtime.exec(handle, { shell: `test -e ${path}` })).exitCode === 0;
const statuses = () => emulator.requests.map((request) => `${request.route} ${request.status}`);

test("a command past the synchronous window is followed to its end (202, then the SDK's poll)", async () => {
  emulator.resetRequests();
  const result = await runtime.exec(handle, { shell: "sleep 0.8; echo done; echo warn >&2; exit 4" });
  assert.deepEqual([result.exitCode, result.stdout, result.stderr, result.timedOut], [4, "done\n", "warn\n", false]);
  const [accepted, ...polls] = statuses();
  assert.equal(accepted, `${EXEC} 202`);
  assert.equal(polls.at(-1), `${POLL} 200`);
  assert.ok(result.durationMs >= 2_000, "the SDK polls after 2 s");
});

test("a command's own timeout past the window comes back through the poll: timedOut, exitCode null", async () => {
  const result = await runtime.exec(handle, { shell: "sleep 30", timeoutMs: 1_000 });
  assert.deepEqual([result.timedOut, result.exitCode], [true, null]);
});

test("the call's deadline while the SDK polls: DEADLINE_EXCEEDED at once, no poll sent after, the command killed", async () => {
  emulator.resetRequests();
  const started = performance.now();
  await expectCode(
    runtime.exec(handle, { shell: "sleep 1.5; echo late > deadline-late.txt; sleep 30" }, { timeoutMs: 1_000 }),
    "DEADLINE_EXCEEDED",
  );
  const elapsed = performance.now() - started;
  // Orderings, not a window (load only ever delays): not before the deadline, and before the SDK's
  // first poll, which it sends 2 s after the 202 and which a wait for the command would have needed.
  assert.ok(elapsed >= 950, `rejected after ${elapsed} ms, before its deadline`);
  assert.equal(emulator.countRequests(POLL), 0, "rejected before the SDK's first poll");
  assert.deepEqual(await runtime.settle(), [], "the kill ran");
  // What must not happen: a poll, or the command's write at 1.5 s. Only waiting past both shows it.
  await delay(3_000);
  assert.equal(emulator.countRequests(POLL), 0, "the SDK's poll loop ended without sending");
  assert.equal(await exists("deadline-late.txt"), false, "the command outlived its call");
});

test("aborting rejects ABORTED with the reason, promptly, and kills the command and its children", async () => {
  const controller = new AbortController();
  const running = runtime.exec(
    handle,
    {
      shell:
        "echo started > abort-started.txt; (sleep 1; echo late > abort-child.txt) & sleep 1; echo late > abort-late.txt",
    },
    { signal: controller.signal },
  );
  running.catch(() => undefined);
  while (!(await exists("abort-started.txt"))) await delay(50);
  const reason = new Error("stop now");
  const abortedAt = performance.now();
  controller.abort(reason);
  const error = await expectCode(running, "ABORTED");
  assert.equal(error.cause, reason);
  assert.ok(performance.now() - abortedAt < 500);
  assert.deepEqual(await runtime.settle(), []);
  await delay(1_500);
  assert.equal(await exists("abort-late.txt"), false, "the command kept running");
  assert.equal(await exists("abort-child.txt"), false, "its child kept running");
});

test("a deadline before the window ends (the request still open) also kills the command", async () => {
  await expectCode(
    runtime.exec(handle, { shell: "sleep 0.6; echo late > early-late.txt" }, { timeoutMs: 150 }),
    "DEADLINE_EXCEEDED",
  );
  assert.deepEqual(await runtime.settle(), []);
  await delay(900);
  assert.equal(await exists("early-late.txt"), false);
});

test("an already-aborted signal sends nothing", async () => {
  const controller = new AbortController();
  controller.abort(new Error("gave up"));
  emulator.resetRequests();
  await expectCode(runtime.exec(handle, { argv: ["true"] }, { signal: controller.signal }), "ABORTED");
  assert.equal(emulator.countRequests(), 0);
});
