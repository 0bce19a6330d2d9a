import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { type ExecEvent, SandportError } from "@sandport/core";
import { MAX_COMMAND_BYTES, planCommand } from "./exec.js";
import type { E2BRunOptions } from "./internal/sdk-types.js";
import { markerSweep } from "./kill.js";
import { EXEC_MARKER_ENV, RESERVED_ENV } from "./markers.js";
import { resolveOptions } from "./options.js";
import { delay, eventually, rejectsWithCode } from "./testing/assertions.js";
import { sdkErrors } from "./testing/fake-e2b.js";
import { type FakeSetup, fakeSetup } from "./testing/setup.js";

let setup: FakeSetup | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

const runs = (current: FakeSetup) =>
  current.fake
    .callsOf("commands.run")
    .map((call) => ({ command: call.args[0] as string, options: call.args[1] as E2BRunOptions }));

test("every command carries a timeout: the caller's, else the run budget (never the SDK's 60 s)", async () => {
  setup = await fakeSetup({ runBudgetMs: 123_000 });
  const handle = await setup.runtime.launch();
  await setup.runtime.exec(handle, { argv: ["true"] });
  await setup.runtime.exec(handle, { argv: ["true"], timeoutMs: 4_000 });
  const [first, second] = runs(setup);
  assert.equal(first?.options.timeoutMs, 123_000);
  assert.equal(second?.options.timeoutMs, 4_000);
  assert.equal(first?.options.background, true);
  assert.equal(first?.options.cwd, setup.workspaceRoot);
});

test("argv is quoted with POSIX single quotes and arrives byte-identical", async () => {
  setup = await fakeSetup();
  const handle = await setup.runtime.launch();
  const argv = ["it's", "a b", "$(touch pwned)", "`id`", "line\nbreak", "ünï ✓", "", "--", "*", "semi;colon"];
  const result = await setup.runtime.exec(handle, { argv: ["printf", "[%s]", ...argv] });
  assert.equal(result.stdout, argv.map((arg) => `[${arg}]`).join(""));
  assert.equal(result.exitCode, 0);
  assert.equal(
    runs(setup)[0]?.command,
    `exec printf '[%s]' 'it'\\''s' 'a b' '$(touch pwned)' '\`id\`' 'line\nbreak' 'ünï ✓' '' -- '*' 'semi;colon'`,
  );
  await rejectsWithCode(setup.runtime.readFile(handle, "pwned"), "NOT_FOUND");
});

test("shell requests run in sh; cwd and env are passed as fields; non-zero exits are results", async () => {
  setup = await fakeSetup();
  const { runtime } = setup;
  const handle = await runtime.launch({ env: { FROM_LAUNCH: "launch", BOTH: "launch" } });
  await runtime.mkdir(handle, "sub/dir");
  const result = await runtime.exec(handle, {
    shell: 'echo "$FROM_LAUNCH $BOTH $(basename "$PWD")"; echo oops >&2; exit 7',
    cwd: "sub/dir",
    env: { BOTH: "request" },
  });
  assert.deepEqual(
    { exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr, timedOut: result.timedOut },
    { exitCode: 7, stdout: "launch request dir\n", stderr: "oops\n", timedOut: false },
  );
  assert.ok(result.durationMs >= 0);
  const sent = runs(setup).at(-1);
  assert.equal(sent?.options.cwd, `${setup.workspaceRoot}/sub/dir`);
  assert.equal(sent?.options.envs?.BOTH, "request");
  assert.match(sent?.options.envs?.[EXEC_MARKER_ENV] ?? "", /^[0-9a-f-]{36}$/);
});

test("stdin (text and all 256 byte values) is piped in; none means empty stdin", async () => {
  setup = await fakeSetup();
  const { runtime } = setup;
  const handle = await runtime.launch();
  const text = await runtime.exec(handle, { argv: ["cat"], stdin: "hello\nworld" });
  assert.equal(text.stdout, "hello\nworld");
  const bytes = Uint8Array.from({ length: 256 }, (_, index) => index);
  const binary = await runtime.exec(handle, { shell: "od -An -v -tx1 | tr -d ' \\n'", stdin: bytes });
  assert.equal(binary.stdout, Buffer.from(bytes).toString("hex"));
  const none = await runtime.exec(handle, { shell: "wc -c" });
  assert.equal(none.stdout.trim(), "0");
});

test("a command past its timeout is killed with its children: timedOut, exitCode null", async () => {
  setup = await fakeSetup();
  const { runtime, fake } = setup;
  const handle = await runtime.launch();
  const started = performance.now();
  const result = await runtime.exec(handle, { shell: "(sleep 1; echo late > late.txt) & sleep 30", timeoutMs: 300 });
  assert.equal(result.timedOut, true);
  assert.equal(result.exitCode, null);
  assert.ok(performance.now() - started < 3_000);
  assert.equal(fake.callsOf("commands.kill").length, 1, "the process is killed by pid");
  assert.ok(
    runs(setup).some((run) => run.command.includes("/proc/")),
    "and its tree by marker",
  );
  await delay(1_300);
  await rejectsWithCode(runtime.readFile(handle, "late.txt"), "NOT_FOUND");
});

test("past maxOutputBytes the output is cut at exactly the cap and the command is stopped", async () => {
  setup = await fakeSetup();
  const { runtime } = setup;
  const handle = await runtime.launch();
  const started = performance.now();
  const result = await runtime.exec(handle, { argv: ["yes"], maxOutputBytes: 4096, timeoutMs: 20_000 });
  assert.equal(result.truncated, true);
  assert.equal(result.timedOut, false);
  assert.equal(result.exitCode, null);
  assert.equal(result.stdout, "y\n".repeat(2048));
  assert.ok(performance.now() - started < 5_000, "stopped well before its timeout");
  const exact = await runtime.exec(handle, { shell: "printf '%04096d' 0", maxOutputBytes: 4096 });
  assert.equal(exact.truncated, false);
  assert.equal(exact.stdout.length, 4096);
});

test("aborting rejects ABORTED with the reason and kills the command", async () => {
  setup = await fakeSetup();
  const { runtime, fake } = setup;
  const handle = await runtime.launch();
  const controller = new AbortController();
  const running = runtime.exec(handle, { shell: "sleep 30" }, { signal: controller.signal });
  await eventually(() => fake.processes.size > 0, 2_000, "the command to start");
  const reason = new Error("stop now");
  controller.abort(reason);
  const error = await rejectsWithCode(running, "ABORTED");
  assert.equal(error.cause, reason);
  await eventually(() => fake.processes.size === 0, 2_000, "the command to be killed");
  const before = runs(setup).length;
  await rejectsWithCode(runtime.exec(handle, { argv: ["true"] }, { signal: controller.signal }), "ABORTED");
  assert.equal(runs(setup).length, before, "an already-aborted call starts nothing");
});

test("a start the provider refused is retried; a dead sandbox or a dropped start is not", async () => {
  setup = await fakeSetup();
  const { runtime, fake } = setup;
  const handle = await runtime.launch();
  fake.fail("commands.run", sdkErrors.envdUnavailable);
  fake.fail("commands.run", sdkErrors.rateLimited);
  const result = await runtime.exec(handle, { argv: ["echo", "ok"] });
  assert.equal(result.stdout, "ok\n");
  assert.equal(fake.callsOf("commands.run").length, 3, "two refusals, one success");
  fake.fail("commands.run", sdkErrors.connectionLost);
  const dropped = await rejectsWithCode(runtime.exec(handle, { argv: ["true"] }), "PROVIDER_UNAVAILABLE");
  assert.equal(dropped.retryable, false, "the command may have started");
  assert.equal(dropped.details.outcomeUnknown, true);
  fake.sandboxes.delete(handle.id);
  fake.fail("commands.run", sdkErrors.envdUnavailable);
  await rejectsWithCode(runtime.exec(handle, { argv: ["true"] }), "NOT_FOUND");
});

test("execStream yields started first, chunks live, exited last with the whole result", async () => {
  setup = await fakeSetup();
  const { runtime } = setup;
  const handle = await runtime.launch();
  const events: ExecEvent[] = [];
  const arrived: number[] = [];
  const started = performance.now();
  for await (const event of runtime.execStream(handle, { shell: "echo one; sleep 0.3; echo two >&2; exit 3" })) {
    events.push(event);
    arrived.push(performance.now() - started);
  }
  assert.equal(events[0]?.type, "started");
  assert.deepEqual(
    events.slice(1, -1).map((event) => event.type !== "exited" && event.type !== "started" && [event.type, event.data]),
    [
      ["stdout", "one\n"],
      ["stderr", "two\n"],
    ],
  );
  const last = events.at(-1);
  assert.equal(last?.type, "exited");
  assert.deepEqual(last?.type === "exited" && [last.result.exitCode, last.result.stdout, last.result.stderr], [
    3,
    "one\n",
    "two\n",
  ]);
  assert.ok((arrived[2] ?? 0) - (arrived[1] ?? 0) > 150, "the first chunk arrived before the command finished");
});

test("breaking out of execStream stops the command", async () => {
  setup = await fakeSetup();
  const { runtime, fake } = setup;
  const handle = await runtime.launch();
  for await (const event of runtime.execStream(handle, { shell: "echo go; sleep 30" })) {
    if (event.type === "stdout") break;
  }
  await eventually(() => fake.processes.size === 0, 2_000, "the command to be killed");
});

test("invalid requests are refused before any call, including commands too long for bash", async () => {
  setup = await fakeSetup();
  const { runtime } = setup;
  const handle = await runtime.launch();
  const before = setup.fake.calls.length;
  await rejectsWithCode(runtime.exec(handle, { argv: [] }), "INVALID_REQUEST");
  await rejectsWithCode(runtime.exec(handle, { argv: ["true"], cwd: "../out" }), "INVALID_REQUEST");
  await rejectsWithCode(runtime.exec(handle, { argv: ["true"], timeoutMs: -5 }), "INVALID_REQUEST");
  await rejectsWithCode(runtime.exec(handle, { argv: ["echo", "x".repeat(MAX_COMMAND_BYTES)] }), "INVALID_REQUEST");
  const stream = runtime.execStream(handle, { shell: "" });
  await rejectsWithCode(stream[Symbol.asyncIterator]().next(), "INVALID_REQUEST");
  assert.equal(setup.fake.calls.length, before);
});

test("planCommand: shell scripts run in their own sh, stdin is embedded as base64", () => {
  const options = resolveOptions({ apiKey: "k" });
  assert.equal(planCommand(options, { shell: "echo $HOME | wc" }).command, "exec sh -c 'echo $HOME | wc'");
  assert.equal(planCommand(options, { argv: ["cat"], stdin: "hi" }).command, "printf '%s' aGk= | base64 -d | exec cat");
  assert.match(markerSweep("abc"), /grep -lzx -- SANDPORT_EXEC_ID=abc /);
});

test("an env that sets one of the runtime's own marker variables is refused before any call", async () => {
  for (const name of RESERVED_ENV) {
    assert.throws(
      () => planCommand(resolveOptions({ apiKey: "key" }), { argv: ["true"], env: { [name]: "forged" } }),
      (error: unknown) => SandportError.hasCode(error, "INVALID_REQUEST"),
      name,
    );
  }
});
