// startCommand, commandStatus and commandLogs through the real e2b SDK against
// the E2B emulator: idempotent sessions, lost responses, races, vanished
// commands, the watchdog, staged stdin and refusals.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { CommandRef } from "@sandport/core";
import { COMMAND_ENV, SESSION_ENV } from "@sandport/core";
import { VANISHED_EXIT } from "@sandport/core/adapter";
import { delay, expectCode, waitFor } from "@sandport/testkit/assertions";
import { Sandbox } from "e2b";
import { emulated } from "../test/emulated.js";

const START = "rpc process.Process/Start";

const { emulator, runtime, runtimeWith } = await emulated({ owner: "async-tests" });
const handle = await runtime.launch();

const exited = (ref: CommandRef) =>
  waitFor(async () => {
    const status = await runtime.commandStatus(handle, ref);
    return status.state === "exited" && status;
  });
const text = async (path: string) => new TextDecoder().decode(await runtime.readFile(handle, path));
/** envd's processes of `handle`, as the SDK lists them. */
const processes = async () => (await Sandbox.connect(handle.id, emulator.sdkOptions)).commands.list();

test("startCommand → running → exited → logs with output, exit code and duration", async () => {
  const ref = await runtime.startCommand(handle, {
    sessionId: "job-1",
    // Runs until the test releases it, however slow the machine: the "running" assertions cannot race its end.
    shell: "echo out; echo err >&2; sleep 0.3; while [ ! -e release-job-1 ]; do sleep 0.05; done; exit 4",
    env: { GREETING: "hi" },
  });
  assert.equal(ref.sessionId, "job-1");
  assert.match(ref.commandId, /^[0-9a-f-]{36}$/);
  const tagged = (await processes()).find((info) => info.envs[COMMAND_ENV] === ref.commandId);
  assert.equal(tagged?.envs[SESSION_ENV], "job-1", "the process carries its session id");
  assert.equal(tagged?.envs.GREETING, "hi");
  assert.deepEqual(await runtime.commandStatus(handle, ref), { state: "running", exitCode: null });
  const running = await runtime.commandLogs(handle, ref);
  assert.equal(running.exitCode, null);
  await runtime.writeFiles(handle, [{ path: "release-job-1", content: "" }]);
  assert.deepEqual(await exited(ref), { state: "exited", exitCode: 4 });
  const logs = await runtime.commandLogs(handle, ref);
  assert.deepEqual(
    [logs.exitCode, logs.stdout, logs.stderr, logs.timedOut, logs.truncated],
    [4, "out\n", "err\n", false, false],
  );
  assert.ok(logs.durationMs >= 250, `durationMs ${logs.durationMs}`);
});

test("envd's own timeout is only a backstop behind the script's watchdog", async () => {
  emulator.resetRequests();
  await runtime.startCommand(handle, { sessionId: "backstop", argv: ["true"], timeoutMs: 5_000 });
  const sent = Number(emulator.requests.find((request) => request.route === START)?.headers["connect-timeout-ms"]);
  assert.equal(sent, 65_000);
});

test("the same session id returns the same command, which runs once (running or finished)", async () => {
  const request = { sessionId: "once", shell: "echo ran >> once.txt; sleep 0.3" };
  emulator.resetRequests();
  const first = await runtime.startCommand(handle, request);
  assert.deepEqual(await runtime.startCommand(handle, request), first, "found running");
  await exited(first);
  assert.deepEqual(await runtime.startCommand(handle, request), first, "found finished by its records");
  assert.equal(emulator.countRequests(START), 3, "one start per call: the script itself reports the existing command");
  assert.equal(await text("once.txt"), "ran\n");
});

test("a start whose response was lost is reconciled on retry instead of starting a second copy", async () => {
  emulator.injectFault({ route: START, fault: { kind: "lost-response" } });
  const request = { sessionId: "lost", shell: "echo ran >> lost.txt; sleep 0.3" };
  await expectCode(runtime.startCommand(handle, request), "PROVIDER_UNAVAILABLE");
  const ref = await runtime.startCommand(handle, request);
  assert.deepEqual(await exited(ref), { state: "exited", exitCode: 0 });
  assert.equal(await text("lost.txt"), "ran\n");
});

test("racing starts of one session never run the command twice (the script's own guard)", async () => {
  const request = { sessionId: "race", shell: "echo ran >> race.txt; sleep 0.3" };
  const refs = await Promise.all([runtime.startCommand(handle, request), runtime.startCommand(handle, request)]);
  assert.equal(refs[0]?.commandId, refs[1]?.commandId, "both starts return the one command");
  await exited(refs[0] as CommandRef);
  assert.equal(await text("race.txt"), "ran\n");
});

test("a command that vanishes without an exit record reports exit code 255", async () => {
  const ref = await runtime.startCommand(handle, { sessionId: "vanish", shell: "sleep 5" });
  const sandbox = await Sandbox.connect(handle.id, emulator.sdkOptions);
  const script = (await sandbox.commands.list()).find((info) => info.envs[COMMAND_ENV] === ref.commandId);
  assert.ok(script);
  await sandbox.commands.kill(script.pid);
  assert.deepEqual(await exited(ref), { state: "exited", exitCode: VANISHED_EXIT });
  assert.equal((await runtime.commandLogs(handle, ref)).exitCode, VANISHED_EXIT);
});

test("an async command past its timeout is killed: exited, logs timedOut, exitCode null", async () => {
  const ref = await runtime.startCommand(handle, {
    sessionId: "slow",
    shell: "echo begun; (sleep 1; echo late > slow.txt) & sleep 30",
    timeoutMs: 300,
  });
  assert.deepEqual(await exited(ref), { state: "exited", exitCode: null });
  const logs = await runtime.commandLogs(handle, ref);
  assert.deepEqual([logs.timedOut, logs.exitCode, logs.stdout], [true, null, "begun\n"]);
  await delay(1_200);
  await expectCode(runtime.readFile(handle, "slow.txt"), "NOT_FOUND");
});

test("logs are capped at the runtime's maxOutputBytes; the cap stopped the command", async () => {
  const capped = runtimeWith({ maxOutputBytes: 10 });
  const ref = await capped.startCommand(handle, { sessionId: "capped", shell: "printf '%020d' 0; echo err >&2" });
  assert.deepEqual(await exited(ref), { state: "exited", exitCode: null });
  const logs = await capped.commandLogs(handle, ref);
  assert.deepEqual(
    [logs.stdout, logs.stderr, logs.truncated, logs.exitCode, logs.timedOut],
    ["0".repeat(10), "", true, null, false],
  );
});

test("the request's maxOutputBytes caps the logs, and stops a command that passed it and went quiet", async () => {
  const ref = await runtime.startCommand(handle, {
    sessionId: "request-cap",
    // Past its cap, then silent: only the sandbox-side cap can stop it before its 60 s budget.
    shell: "printf '%030d' 0; echo err >&2; exec sleep 60",
    maxOutputBytes: 12,
    timeoutMs: 60_000,
  });
  assert.deepEqual(await exited(ref), { state: "exited", exitCode: null });
  const logs = await runtime.commandLogs(handle, ref);
  assert.deepEqual(
    [logs.stdout, logs.stderr, logs.truncated, logs.exitCode, logs.timedOut],
    ["0".repeat(12), "", true, null, false],
  );
});

test("two streams past the cap only together are cut when read and marked as stopped", async () => {
  const ref = await runtime.startCommand(handle, {
    sessionId: "together-cap",
    shell: "printf out-out; printf err-err >&2; exit 3",
    maxOutputBytes: 10,
  });
  assert.deepEqual(await exited(ref), { state: "exited", exitCode: null });
  const logs = await runtime.commandLogs(handle, ref);
  assert.deepEqual([logs.stdout, logs.stderr, logs.truncated, logs.exitCode], ["out-out", "err", true, null]);
});

test("large stdin is staged as a file, read by the command, then deleted", async () => {
  const big = "x".repeat(200_000);
  assert.equal((await runtime.exec(handle, { shell: "wc -c", stdin: big })).stdout.trim(), "200000");
  const ref = await runtime.startCommand(handle, { sessionId: "big-in", shell: "wc -c", stdin: big });
  await exited(ref);
  assert.equal((await runtime.commandLogs(handle, ref)).stdout.trim(), "200000");
  const again = await runtime.startCommand(handle, { sessionId: "big-in", shell: "wc -c", stdin: big });
  assert.deepEqual(again, ref, "a start that ran nothing");
  const sandbox = await Sandbox.connect(handle.id, emulator.sdkOptions);
  assert.deepEqual(await sandbox.files.list("/home/user/.sandport/stdin"), [], "staged stdin is always deleted");
});

test("unknown sessions and invalid requests are refused instead of invented", async () => {
  await expectCode(runtime.commandStatus(handle, { sessionId: "never", commandId: "1" }), "NOT_FOUND");
  await expectCode(runtime.commandLogs(handle, { sessionId: "never", commandId: "1" }), "NOT_FOUND");
  const other = await runtime.startCommand(handle, { sessionId: "held", argv: ["true"] });
  await expectCode(runtime.commandStatus(handle, { ...other, commandId: "someone-else" }), "NOT_FOUND");
  emulator.resetRequests();
  for (const sessionId of ["../up", "job 42", "", ".", "a".repeat(129)]) {
    await expectCode(runtime.startCommand(handle, { sessionId, argv: ["true"] }), "INVALID_REQUEST", sessionId);
  }
  await expectCode(runtime.startCommand(handle, { sessionId: "ok", argv: [] }), "INVALID_REQUEST");
  await expectCode(runtime.commandStatus(handle, { sessionId: "a/b", commandId: "1" }), "INVALID_REQUEST");
  await expectCode(runtime.commandLogs(handle, { sessionId: "ok", commandId: "" }), "INVALID_REQUEST");
  await expectCode(runtime.commandLogs(handle, null as unknown as CommandRef), "INVALID_REQUEST");
  assert.equal(emulator.countRequests(), 0);
});

test("a start script that ends without its start line is UNEXPECTED, saying how it ended", async () => {
  // The command state directory would be under a file: the script exits 1 before it says anything.
  const unwritable = runtimeWith({ commandStateDirectory: "/home/user/workspace/blocker/sandport-commands" });
  const sandbox = await unwritable.launch();
  try {
    await unwritable.writeFiles(sandbox, [{ path: "blocker", content: "a file, not a directory" }]);
    const failure = await expectCode(
      unwritable.startCommand(sandbox, { sessionId: "no-state", shell: "true" }),
      "UNEXPECTED",
    );
    assert.match(failure.message, /its start script ended before saying so \(exit 1, stderr "mkdir: .*blocker/);
  } finally {
    await unwritable.destroy(sandbox);
  }
});
