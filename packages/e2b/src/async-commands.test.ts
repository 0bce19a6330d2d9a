import assert from "node:assert/strict";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, test } from "node:test";
import { VANISHED_EXIT } from "./async-commands.js";
import type { E2BRunOptions } from "./internal/sdk-types.js";
import { COMMAND_ENV, SESSION_ENV } from "./markers.js";
import { delay, eventually, rejectsWithCode } from "./testing/assertions.js";
import { sdkErrors } from "./testing/fake-e2b.js";
import { type FakeSetup, fakeSetup } from "./testing/setup.js";

let setup: FakeSetup | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

async function waitExited(
  current: FakeSetup,
  handle: Parameters<FakeSetup["runtime"]["commandStatus"]>[0],
  ref: { sessionId: string; commandId: string },
) {
  let status = await current.runtime.commandStatus(handle, ref);
  const until = Date.now() + 5_000;
  while (status.state === "running" && Date.now() < until) {
    await delay(30);
    status = await current.runtime.commandStatus(handle, ref);
  }
  return status;
}

test("startCommand → running → exited → logs with output, exit code and duration", async () => {
  setup = await fakeSetup();
  const { runtime, fake } = setup;
  const handle = await runtime.launch();
  const ref = await runtime.startCommand(handle, {
    sessionId: "job-1",
    shell: "echo out; echo err >&2; sleep 0.3; exit 4",
    env: { GREETING: "hi" },
  });
  assert.equal(ref.sessionId, "job-1");
  assert.match(ref.commandId, /^[0-9a-f-]{36}$/);
  const run = fake.callsOf("commands.run")[0]?.args[1] as E2BRunOptions;
  assert.equal(run.envs?.[SESSION_ENV], "job-1", "the process carries its session id");
  assert.equal(run.envs?.[COMMAND_ENV], ref.commandId, "and its command id");
  assert.equal(run.envs?.GREETING, "hi");
  assert.ok(run.timeoutMs > 600_000, "envd's own timeout is only a backstop behind the script's watchdog");
  assert.deepEqual(await runtime.commandStatus(handle, ref), { state: "running", exitCode: null });
  assert.deepEqual(await waitExited(setup, handle, ref), { state: "exited", exitCode: 4 });
  const logs = await runtime.commandLogs(handle, ref);
  assert.deepEqual(
    {
      exitCode: logs.exitCode,
      stdout: logs.stdout,
      stderr: logs.stderr,
      timedOut: logs.timedOut,
      truncated: logs.truncated,
    },
    { exitCode: 4, stdout: "out\n", stderr: "err\n", timedOut: false, truncated: false },
  );
  assert.ok(logs.durationMs >= 250, `durationMs ${logs.durationMs}`);
});

test("the same session id returns the same command, which runs once (running or finished)", async () => {
  setup = await fakeSetup();
  const { runtime, fake } = setup;
  const handle = await runtime.launch();
  const request = { sessionId: "once", shell: "echo ran >> count.txt; sleep 0.3" };
  const first = await runtime.startCommand(handle, request);
  const again = await runtime.startCommand(handle, request);
  assert.deepEqual(again, first, "found running by its session tag");
  await waitExited(setup, handle, first);
  const later = await runtime.startCommand(handle, request);
  assert.deepEqual(later, first, "found finished by its records");
  assert.equal(
    fake.callsOf("commands.run").length,
    3,
    "one start per call: the script itself reports the existing command",
  );
  assert.equal(new TextDecoder().decode(await runtime.readFile(handle, "count.txt")), "ran\n");
});

test("a start whose response was lost is reconciled on retry instead of starting a second copy", async () => {
  setup = await fakeSetup();
  const { runtime, fake } = setup;
  const handle = await runtime.launch();
  fake.fail("commands.run", sdkErrors.connectionLost, { afterWork: true });
  const request = { sessionId: "lost", shell: "echo ran >> count.txt; sleep 0.5" };
  await rejectsWithCode(runtime.startCommand(handle, request), "PROVIDER_UNAVAILABLE");
  const ref = await runtime.startCommand(handle, request);
  assert.deepEqual(await waitExited(setup, handle, ref), { state: "exited", exitCode: 0 });
  assert.equal(new TextDecoder().decode(await runtime.readFile(handle, "count.txt")), "ran\n");
});

test("racing starts of one session never run the command twice (the script's own guard)", async () => {
  setup = await fakeSetup();
  const { runtime } = setup;
  const handle = await runtime.launch();
  const request = { sessionId: "race", shell: "echo ran >> count.txt; sleep 0.3" };
  const refs = await Promise.all([runtime.startCommand(handle, request), runtime.startCommand(handle, request)]);
  for (const ref of refs) await waitExited(setup, handle, ref);
  assert.equal(new TextDecoder().decode(await runtime.readFile(handle, "count.txt")), "ran\n");
  assert.equal(refs[0]?.commandId, refs[1]?.commandId, "both starts return the one command");
});

test("a command that vanishes without an exit record reports exit code 255", async () => {
  setup = await fakeSetup();
  const { runtime, fake } = setup;
  const handle = await runtime.launch();
  const ref = await runtime.startCommand(handle, { sessionId: "vanish", shell: "sleep 5" });
  const script = [...fake.processes.values()].find((process) => process.envs[COMMAND_ENV] === ref.commandId);
  script?.child.kill("SIGKILL");
  await eventually(() => !fake.processes.has(script?.pid ?? -1), 2_000, "the script to die");
  assert.deepEqual(await runtime.commandStatus(handle, ref), { state: "exited", exitCode: VANISHED_EXIT });
  assert.equal((await runtime.commandLogs(handle, ref)).exitCode, VANISHED_EXIT);
});

test("an async command past its timeout is killed: exited, logs timedOut, exitCode null", async () => {
  setup = await fakeSetup();
  const { runtime } = setup;
  const handle = await runtime.launch();
  const ref = await runtime.startCommand(handle, {
    sessionId: "slow",
    shell: "echo begun; (sleep 1; echo late > late.txt) & sleep 30",
    timeoutMs: 300,
  });
  assert.deepEqual(await waitExited(setup, handle, ref), { state: "exited", exitCode: null });
  const logs = await runtime.commandLogs(handle, ref);
  assert.equal(logs.timedOut, true);
  assert.equal(logs.exitCode, null);
  assert.equal(logs.stdout, "begun\n");
  await delay(1_200);
  await rejectsWithCode(runtime.readFile(handle, "late.txt"), "NOT_FOUND");
});

test("large stdin is staged as a file, read by the command, then deleted", async () => {
  setup = await fakeSetup();
  const { runtime } = setup;
  const handle = await runtime.launch();
  const big = "x".repeat(200_000);
  const result = await runtime.exec(handle, { shell: "wc -c", stdin: big });
  assert.equal(result.stdout.trim(), "200000");
  const ref = await runtime.startCommand(handle, { sessionId: "big-in", shell: "wc -c", stdin: big });
  await waitExited(setup, handle, ref);
  assert.equal((await runtime.commandLogs(handle, ref)).stdout.trim(), "200000");
  assert.deepEqual(await readdir(join(setup.root, "stdin")), [], "staged stdin is deleted");
});

test("unknown sessions and invalid requests are refused instead of invented", async () => {
  setup = await fakeSetup();
  const { runtime, fake } = setup;
  const handle = await runtime.launch();
  await rejectsWithCode(runtime.commandStatus(handle, { sessionId: "never", commandId: "1" }), "NOT_FOUND");
  await rejectsWithCode(runtime.commandLogs(handle, { sessionId: "never", commandId: "1" }), "NOT_FOUND");
  const before = fake.calls.length;
  await rejectsWithCode(runtime.startCommand(handle, { sessionId: "../up", argv: ["true"] }), "INVALID_REQUEST");
  await rejectsWithCode(runtime.startCommand(handle, { sessionId: "ok", argv: [] }), "INVALID_REQUEST");
  await rejectsWithCode(runtime.commandStatus(handle, { sessionId: "a/b", commandId: "1" }), "INVALID_REQUEST");
  assert.equal(fake.calls.length, before);
});
