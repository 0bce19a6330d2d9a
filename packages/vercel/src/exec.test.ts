// exec and execStream through the real @vercel/sandbox SDK against the Vercel emulator:
// one request per command, argv, cwd and env in Vercel's own fields, stdin arranged for a
// provider that has none, and kills that reach the whole process tree.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { ExecEvent } from "@sandport/core";
import { delay, expectCode, waitFor } from "@sandport/testkit/assertions";
import { emulated } from "../test/emulated.js";

const CMD = "POST /v2/sandboxes/sessions/:sessionId/cmd";
const WRITE = "POST /v2/sandboxes/sessions/:sessionId/fs/write";

const { emulator, runtime } = await emulated({ owner: "exec-tests" });
const handle = await runtime.launch({ env: { FROM_LAUNCH: "launch" } });
const text = async (path: string) => new TextDecoder().decode(await runtime.readFile(handle, path));

test("a command is one request, its output streamed in it; argv, cwd and env arrive as they were given", async () => {
  await runtime.writeFiles(handle, [{ path: "a dir/'q' $x/.keep", content: "" }]);
  emulator.resetRequests();
  const result = await runtime.exec(handle, {
    argv: ["sh", "-c", 'printf "%s|" "$0" "$1" "$PWD" "$HOSTILE" "$FROM_LAUNCH"', "$(not run)", "two words"],
    cwd: "a dir/'q' $x",
    env: { HOSTILE: "it's $(a) `b` \\ \n line" },
  });
  assert.equal(result.stdout, `$(not run)|two words|${result.stdout.split("|")[2]}|it's $(a) \`b\` \\ \n line|launch|`);
  assert.match(result.stdout.split("|")[2] ?? "", /\/a dir\/'q' \$x$/, "the working directory, verbatim");
  assert.deepEqual(
    emulator.requests.map((request) => request.route),
    [CMD],
    "no staging, no wrapper: one request",
  );
});

test("stdin: embedded in the command up to 64 KiB, staged beside the workspace above, removed before it runs", async () => {
  emulator.resetRequests();
  assert.equal((await runtime.exec(handle, { argv: ["cat"], stdin: "small" })).stdout, "small");
  assert.deepEqual(
    emulator.requests.map((request) => request.route),
    [CMD],
  );
  emulator.resetRequests();
  const large = new Uint8Array(200 * 1024).fill(65);
  assert.equal((await runtime.exec(handle, { shell: "wc -c", stdin: large })).stdout.trim(), String(large.length));
  assert.deepEqual(
    emulator.requests.map((request) => request.route),
    [WRITE, CMD],
  );
  const left = await runtime.exec(handle, { shell: "ls -A ../.sandport/stdin | wc -l" });
  assert.equal(left.stdout.trim(), "0", "the staged file is gone");
  const listing = await runtime.exec(handle, { shell: "ls -A" });
  assert.ok(!listing.stdout.includes(".sandport"), "nothing of the adapter's is in the workspace");
});

test("the kill marker is reserved, and a refused request sends nothing", async () => {
  emulator.resetRequests();
  await expectCode(runtime.exec(handle, { argv: ["true"], env: { SANDPORT_EXEC_ID: "forged" } }), "INVALID_REQUEST");
  await expectCode(runtime.exec(handle, { argv: [] }), "INVALID_REQUEST");
  await expectCode(runtime.exec(handle, { argv: ["true"], cwd: "../escape" }), "INVALID_REQUEST");
  const huge = "x".repeat(200 * 1024);
  await expectCode(runtime.exec(handle, { shell: `true ${huge}` }), "INVALID_REQUEST");
  await expectCode(runtime.exec(handle, { argv: ["echo", huge] }), "INVALID_REQUEST");
  await expectCode(runtime.exec(handle, { shell: `cat # ${huge}`, stdin: "a" }), "INVALID_REQUEST");
  assert.equal(emulator.countRequests(), 0);
});

test("an abort kills the command and its descendants, found by their marker (one more request)", async () => {
  const controller = new AbortController();
  const running = runtime.exec(
    handle,
    { shell: "setsid sh -c 'sleep 1; echo late > abort-late.txt' & echo started > abort-started.txt; sleep 30" },
    { signal: controller.signal },
  );
  await waitFor(() => runtime.readFile(handle, "abort-started.txt").catch(() => undefined), { intervalMs: 50 });
  emulator.resetRequests();
  controller.abort(new Error("enough"));
  await expectCode(running, "ABORTED");
  await waitFor(() => emulator.countRequests(CMD) >= 1 || undefined, { intervalMs: 20, what: "the sweep" });
  await delay(1_500);
  await expectCode(runtime.readFile(handle, "abort-late.txt"), "NOT_FOUND");
});

test("a non-zero exit, a timeout and the output cap are results; timeouts sweep stray children too", async () => {
  assert.equal((await runtime.exec(handle, { shell: "echo out; echo err >&2; exit 7" })).exitCode, 7);
  emulator.resetRequests();
  const slow = await runtime.exec(handle, { shell: "sleep 30", timeoutMs: 300 });
  assert.deepEqual([slow.exitCode, slow.timedOut], [null, true]);
  assert.equal(emulator.countRequests(CMD), 2, "the command, then the sweep of what it left");
  const capped = await runtime.exec(handle, { shell: "yes", maxOutputBytes: 1000, timeoutMs: 20_000 });
  assert.deepEqual([capped.exitCode, capped.truncated, capped.stdout.length], [null, true, 1000]);
});

test("execStream yields started, the chunks as they come, then exited; leaving early stops the command", async () => {
  const events: ExecEvent[] = [];
  for await (const event of runtime.execStream(handle, { shell: "echo one; sleep 0.3; echo two >&2" })) {
    events.push(event);
  }
  assert.deepEqual(
    events.map((event) => event.type),
    ["started", "stdout", "stderr", "exited"],
  );
  const chunk = events[1] as Extract<ExecEvent, { bytes: Uint8Array }>;
  assert.deepEqual(chunk.bytes, new TextEncoder().encode("one\n"), "bytes are the text's UTF-8");
  for await (const event of runtime.execStream(handle, { shell: "echo first; sleep 1; echo kept > early.txt" })) {
    if (event.type === "stdout") break;
  }
  await delay(1_500);
  await expectCode(text("early.txt"), "NOT_FOUND");
});
