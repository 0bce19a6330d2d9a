// exec and execStream through the real e2b SDK against the E2B emulator:
// quoting, stdin, timeouts, the output cap, aborts, streams and refusals.
import assert from "node:assert/strict";
import { test } from "node:test";
import { type ExecEvent, enterCwdScript, RESERVED_ENV, SandportError } from "@sandport/core";
import { MAX_COMMAND_BYTES } from "@sandport/core/adapter";
import { delay, expectCode, waitFor } from "@sandport/testkit/assertions";
import { emulated } from "../test/emulated.js";
import { planCommand } from "./command-plan.js";
import { resolveOptions } from "./options.js";

const START = "rpc process.Process/Start";

const { emulator, runtime } = await emulated({ owner: "exec-tests", runBudgetMs: 123_000 });
const handle = await runtime.launch({ env: { FROM_LAUNCH: "launch", BOTH: "launch" } });

/** The command timeouts sent, in ms (the SDK sends them as Connect's deadline header). */
const sentTimeouts = () =>
  emulator.requests.filter((request) => request.route === START).map((r) => Number(r.headers["connect-timeout-ms"]));

test("every command carries a timeout: the caller's, else the run budget (never the SDK's 60 s)", async () => {
  emulator.resetRequests();
  await runtime.exec(handle, { argv: ["true"] });
  await runtime.exec(handle, { argv: ["true"], timeoutMs: 4_000 });
  assert.deepEqual(sentTimeouts(), [123_000, 4_000]);
});

test("argv is quoted with POSIX single quotes and arrives byte-identical", async () => {
  const argv = ["it's", "a b", "$(touch pwned)", "`id`", "line\nbreak", "ünï ✓", "", "--", "*", "semi;colon"];
  const result = await runtime.exec(handle, { argv: ["printf", "[%s]", ...argv] });
  assert.equal(result.stdout, argv.map((arg) => `[${arg}]`).join(""));
  assert.equal(result.exitCode, 0);
  await expectCode(runtime.readFile(handle, "pwned"), "NOT_FOUND");
});

test("shell requests run in sh; cwd and env apply over the launch env; non-zero exits are results", async () => {
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
});

test("stdin (text and all 256 byte values) is piped in; none means empty stdin", async () => {
  assert.equal((await runtime.exec(handle, { argv: ["cat"], stdin: "hello\nworld" })).stdout, "hello\nworld");
  const bytes = Uint8Array.from({ length: 256 }, (_, index) => index);
  const binary = await runtime.exec(handle, { shell: "od -An -v -tx1 | tr -d ' \\n'", stdin: bytes });
  assert.equal(binary.stdout, Buffer.from(bytes).toString("hex"));
  assert.equal((await runtime.exec(handle, { shell: "wc -c" })).stdout.trim(), "0");
});

test("a command past its timeout is killed with its children: timedOut, exitCode null", async () => {
  emulator.resetRequests();
  const started = performance.now();
  const result = await runtime.exec(handle, { shell: "(sleep 1; echo late > late.txt) & sleep 30", timeoutMs: 300 });
  assert.equal(result.timedOut, true);
  assert.equal(result.exitCode, null);
  assert.ok(performance.now() - started < 3_000);
  await delay(1_300);
  await expectCode(runtime.readFile(handle, "late.txt"), "NOT_FOUND");
});

test("past maxOutputBytes the output is cut at exactly the cap and the command is stopped", async () => {
  const started = performance.now();
  const result = await runtime.exec(handle, { argv: ["yes"], maxOutputBytes: 4096, timeoutMs: 20_000 });
  assert.deepEqual([result.truncated, result.timedOut, result.exitCode], [true, false, null]);
  assert.equal(result.stdout, "y\n".repeat(2048));
  assert.ok(performance.now() - started < 5_000, "stopped well before its timeout");
  const exact = await runtime.exec(handle, { shell: "printf '%04096d' 0", maxOutputBytes: 4096 });
  assert.equal(exact.truncated, false);
  assert.equal(exact.stdout.length, 4096);
});

test("aborting rejects ABORTED with the reason and kills the command and its children", async () => {
  const controller = new AbortController();
  const running = runtime.exec(
    handle,
    { shell: "(sleep 1; echo late > aborted.txt) & echo started > abort-started.txt; sleep 30" },
    controller,
  );
  // Aborted while it runs, child and all (not while the start is still on its way).
  await waitFor(() => runtime.readFile(handle, "abort-started.txt").catch(() => undefined), {
    what: "the command to run",
  });
  const reason = new Error("stop now");
  controller.abort(reason);
  const error = await expectCode(running, "ABORTED");
  assert.equal(error.cause, reason);
  await delay(1_200);
  await expectCode(runtime.readFile(handle, "aborted.txt"), "NOT_FOUND");
  emulator.resetRequests();
  await expectCode(runtime.exec(handle, { argv: ["true"] }, { signal: controller.signal }), "ABORTED");
  assert.equal(emulator.countRequests(), 0, "an already-aborted call sends nothing");
});

test("a start E2B refused is retried; a dropped start is not (it may have run)", async () => {
  emulator.injectFault({ route: START, fault: { kind: "status", status: 503 } });
  emulator.injectFault({ route: START, fault: { kind: "status", status: 429 } });
  emulator.resetRequests();
  assert.equal((await runtime.exec(handle, { argv: ["echo", "ok"] })).stdout, "ok\n");
  assert.equal(emulator.countRequests(START), 3, "two refusals, one success");
  emulator.injectFault({ route: START, fault: { kind: "drop" } });
  const dropped = await expectCode(runtime.exec(handle, { argv: ["true"] }), "PROVIDER_UNAVAILABLE");
  assert.equal(dropped.retryable, false, "the command may have started");
  assert.equal(dropped.details.outcomeUnknown, true);
});

test("execStream yields started first, chunks live, exited last with the whole result", async () => {
  const events: ExecEvent[] = [];
  const arrived: number[] = [];
  const started = performance.now();
  for await (const event of runtime.execStream(handle, { shell: "echo one; sleep 0.3; echo two >&2; exit 3" })) {
    events.push(event);
    arrived.push(performance.now() - started);
  }
  assert.deepEqual(
    events.map((event) => event.type),
    ["started", "stdout", "stderr", "exited"],
  );
  const last = events.at(-1);
  assert.deepEqual(last?.type === "exited" && [last.result.exitCode, last.result.stdout, last.result.stderr], [
    3,
    "one\n",
    "two\n",
  ]);
  assert.ok((arrived[2] ?? 0) - (arrived[1] ?? 0) > 150, "the first chunk arrived before the command finished");
});

test("breaking out of execStream stops the command", async () => {
  for await (const event of runtime.execStream(handle, { shell: "echo go; sleep 1; echo late > broke.txt" })) {
    if (event.type === "stdout") break;
  }
  await delay(1_300);
  await expectCode(runtime.readFile(handle, "broke.txt"), "NOT_FOUND");
});

test("invalid requests are refused before any request, including commands too long for bash", async () => {
  emulator.resetRequests();
  await expectCode(runtime.exec(handle, { argv: [] }), "INVALID_REQUEST");
  await expectCode(runtime.exec(handle, { argv: ["true"], cwd: "../out" }), "INVALID_REQUEST");
  await expectCode(runtime.exec(handle, { argv: ["true"], timeoutMs: -5 }), "INVALID_REQUEST");
  await expectCode(runtime.exec(handle, { argv: ["echo", "x".repeat(MAX_COMMAND_BYTES)] }), "INVALID_REQUEST");
  await expectCode(runtime.exec(handle, { argv: ["true"], env: { SANDPORT_EXEC_ID: "x" } }), "INVALID_REQUEST");
  const stream = runtime.execStream(handle, { shell: "" });
  await expectCode(stream[Symbol.asyncIterator]().next(), "INVALID_REQUEST");
  assert.equal(emulator.countRequests(), 0);
});

test("planCommand: shell scripts run in their own sh, stdin is embedded as base64, or staged when large", () => {
  const options = resolveOptions({ apiKey: "k" });
  const elsewhere = { cwd: "/tmp" };
  assert.equal(
    planCommand(options, { shell: "echo $HOME | wc", ...elsewhere }).command,
    "exec sh -c 'echo $HOME | wc'",
  );
  assert.equal(
    planCommand(options, { argv: ["cat"], stdin: "hi", ...elsewhere }).command,
    "printf '%s' aGk= | base64 -d | exec cat",
  );
  const large = planCommand(options, { argv: ["cat"], stdin: "x".repeat(100_000) });
  assert.match(large.stdinUpload?.path ?? "", /^\/home\/user\/\.sandport\/stdin\/[0-9a-f-]{36}$/);
  // In the workspace root: started in home, the command makes and enters the workspace by its path from
  // there (never its absolute path, which an emulator without isolation would make on its host), then takes its stdin.
  const enter = enterCwdScript("./workspace", "./workspace");
  assert.equal(large.processCwd, "/home/user");
  assert.ok(large.command.startsWith(`${enter} && exec 0<../.sandport/stdin/`), large.command);
  assert.equal(planCommand(options, { argv: ["true"], ...elsewhere }).processCwd, "/tmp");
});

test("an env that sets one of the runtime's own marker variables is refused", () => {
  for (const name of RESERVED_ENV) {
    assert.throws(
      () => planCommand(resolveOptions({ apiKey: "key" }), { argv: ["true"], env: { [name]: "forged" } }),
      (error: unknown) => SandportError.hasCode(error, "INVALID_REQUEST"),
      name,
    );
  }
});
