// startCommand, commandStatus and commandLogs through the real @vercel/sandbox SDK against
// the Vercel emulator: Vercel's detached commands, a session claimed once inside the
// sandbox, the requests each call costs, and commands that belong to one session.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { CommandRef } from "@sandport/core";
import { expectCode, waitFor } from "@sandport/testkit/assertions";
import { defaultBackendIsolation } from "@sandport/testkit/emulators";
import { emulated } from "../test/emulated.js";

const CMD = "POST /v2/sandboxes/sessions/:sessionId/cmd";
const GET_CMD = "GET /v2/sandboxes/sessions/:sessionId/cmd/:cmdId";
const LOGS = "GET /v2/sandboxes/sessions/:sessionId/cmd/:cmdId/logs";
const WRITE = "POST /v2/sandboxes/sessions/:sessionId/fs/write";
const READ = "POST /v2/sandboxes/sessions/:sessionId/fs/read";

const { emulator, runtime, runtimeWith } = await emulated({ owner: "async-tests" });
const backend = await defaultBackendIsolation();
/**
 * Without bubblewrap's shared namespaces the emulated sandbox is host processes (isolation none), and
 * there the sandbox-side cap did not stop a quiet command in CI: not yet understood, so not claimed.
 */
const capSkip =
  backend.isolated && backend.namespaceScope === "sandbox"
    ? false
    : "needs bubblewrap with one namespace set per sandbox: under the unisolated emulator backend the sandbox-side output cap is unproven";
const handle = await runtime.launch();
const routes = () => emulator.requests.map((request) => request.route);
const exited = (ref: CommandRef) =>
  waitFor(async () => ((await runtime.commandStatus(handle, ref)).state === "exited" ? true : undefined), {
    intervalMs: 50,
    what: `command ${ref.commandId}`,
  });

test("a new session costs a claim, the detached start and its record; a known one, the claim alone", async () => {
  emulator.resetRequests();
  const ref = await runtime.startCommand(handle, { sessionId: "job-1", shell: "echo out; echo err >&2; exit 4" });
  assert.deepEqual(routes(), [CMD, CMD, WRITE]);
  assert.match(ref.commandId, /^cmd_/, "the command id is Vercel's");
  emulator.resetRequests();
  assert.deepEqual(await runtime.startCommand(handle, { sessionId: "job-1", argv: ["false"] }), ref);
  assert.deepEqual(routes(), [CMD]);
  const other = await runtimeWith({}).startCommand(handle, { sessionId: "job-1", argv: ["false"] });
  assert.deepEqual(other, ref, "another instance gets the same command");
  const record = await runtime.exec(handle, { argv: ["cat", "../.sandport/sessions/job-1/command"] });
  assert.equal(record.stdout.split("\n")[0], ref.commandId, "the record lives beside the workspace");
});

test("status is one getCommand; logs of an ended command are its whole log, replayed, at its recorded cap", async () => {
  const ref = await runtime.startCommand(handle, { sessionId: "job-2", shell: "echo one; echo two >&2; exit 3" });
  await exited(ref);
  emulator.resetRequests();
  assert.deepEqual(await runtime.commandStatus(handle, ref), { state: "exited", exitCode: 3 });
  assert.deepEqual(routes(), [GET_CMD]);
  emulator.resetRequests();
  const logs = await runtime.commandLogs(handle, ref);
  assert.deepEqual(
    { ...logs, durationMs: 0 },
    { exitCode: 3, stdout: "one\n", stderr: "two\n", truncated: false, timedOut: false, durationMs: 0 },
  );
  assert.deepEqual(routes(), [GET_CMD, READ, LOGS]);
});

test("logs of a running command are what arrived until the stream went quiet; the command's own cap applies", async () => {
  const ref = await runtime.startCommand(handle, { sessionId: "job-3", shell: "echo early; sleep 5; echo late" });
  const started = performance.now();
  const partial = await waitFor(
    async () => {
      const logs = await runtime.commandLogs(handle, ref);
      return logs.stdout === "" ? undefined : logs;
    },
    { intervalMs: 50 },
  );
  assert.deepEqual([partial.stdout, partial.exitCode, partial.timedOut], ["early\n", null, false]);
  assert.ok(performance.now() - started < 3_000, "a running command's logs do not wait for its end");
  const otherCap = await runtimeWith({ maxOutputBytes: 3 }).commandLogs(handle, ref);
  assert.deepEqual([otherCap.stdout, otherCap.truncated], ["early\n", false], "the cap recorded at its start");
});

test("the request's output cap stops a command that passed it and went quiet, with nobody polling", {
  skip: capSkip,
}, async () => {
  const ref = await runtime.startCommand(handle, {
    sessionId: "capped",
    // Past its cap, then silent: only the sandbox-side cap stops it before its budget.
    // One stream only: Vercel's log interleaves two as they arrive, so which bytes the cap keeps would vary.
    shell: "printf '%030d' 0; exec sleep 60",
    maxOutputBytes: 12,
    timeoutMs: 60_000,
  });
  await exited(ref);
  assert.deepEqual(await runtime.commandStatus(handle, ref), { state: "exited", exitCode: null });
  const logs = await runtime.commandLogs(handle, ref);
  assert.deepEqual(
    [logs.stdout, logs.stderr, logs.truncated, logs.exitCode, logs.timedOut],
    ["0".repeat(12), "", true, null, false],
  );
  const own = await runtime.startCommand(handle, { sessionId: "exits-141", shell: "echo small; exit 141" });
  await exited(own);
  assert.deepEqual(await runtime.commandStatus(handle, own), { state: "exited", exitCode: 141 }, "its own 141");
});

test("a command killed at its timeout reports exitCode null and timedOut; a plain kill code does not", async () => {
  const slow = await runtime.startCommand(handle, { sessionId: "job-4", shell: "sleep 30", timeoutMs: 300 });
  await exited(slow);
  assert.deepEqual(await runtime.commandStatus(handle, slow), { state: "exited", exitCode: null });
  assert.equal((await runtime.commandLogs(handle, slow)).timedOut, true);
  const killed = await runtime.startCommand(handle, { sessionId: "job-5", shell: "kill -9 $$" });
  await exited(killed);
  assert.deepEqual(await runtime.commandStatus(handle, killed), { state: "exited", exitCode: 137 });
});

test("unknown commands, and commands of an earlier session of a stopped sandbox, are NOT_FOUND", async () => {
  const unknown = { sessionId: "nope", commandId: "cmd_unknown" };
  await expectCode(runtime.commandStatus(handle, unknown), "NOT_FOUND");
  await expectCode(runtime.commandLogs(handle, unknown), "NOT_FOUND");
  emulator.resetRequests();
  await expectCode(runtime.commandStatus(handle, { sessionId: "bad id", commandId: "x" }), "INVALID_REQUEST");
  await expectCode(runtime.startCommand(handle, { sessionId: "..", argv: ["true"] }), "INVALID_REQUEST");
  assert.equal(emulator.countRequests(), 0);
  const ref = await runtime.startCommand(handle, { sessionId: "job-6", argv: ["true"] });
  await exited(ref);
  await runtime.stop(handle);
  await runtime.start(handle);
  await expectCode(runtime.commandStatus(handle, ref), "NOT_FOUND");
});
