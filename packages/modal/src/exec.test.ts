// exec, execStream and spawn through the real modal SDK against the Modal
// emulator: argv and shell, stdin, exact bytes, the run budget and the output
// cap enforced by killing the command's whole process tree (Modal has no exec
// kill), aborts, and what is refused before any request.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { ExecEvent } from "@sandport/core";
import { expectCode, waitFor } from "@sandport/testkit/assertions";
import { emulated } from "../test/emulated.js";

const ROUTER = "rpc modal.task_command_router.TaskCommandRouter/";

const { emulator, runtime } = await emulated({ owner: "exec-tests" });
/** A script printing whether the process whose pid is in `file` still runs (a zombie does not). */
const aliveProbe = (file: string) => `ps -o stat= -p "$(cat ${file})" | grep -qv Z && echo alive || echo dead`;
const handle = await runtime.launch({ env: { FROM_LAUNCH: "launch" } });

test("argv reaches the program unchanged; a shell script runs in sh -c; env, cwd and exit codes", async () => {
  await runtime.mkdir(handle, "sub/dir");
  const printed = await runtime.exec(handle, { argv: ["printf", "%s|", "a b", "$HOME", "'q'", "é"] });
  assert.deepEqual([printed.stdout, printed.stderr, printed.exitCode], ["a b|$HOME|'q'|é|", "", 0]);
  const shell = await runtime.exec(handle, {
    shell: 'echo "$FROM_LAUNCH $ONLY_HERE $(basename "$(pwd)")"; echo err >&2; exit 7',
    env: { ONLY_HERE: "request" },
    cwd: "sub/dir",
  });
  assert.deepEqual([shell.stdout, shell.stderr, shell.exitCode], ["launch request dir\n", "err\n", 7]);
  assert.equal(shell.timedOut, false);
  assert.equal(shell.truncated, false);
});

test("stdin is written and closed; without stdin a reading command sees end of file at once", async () => {
  const fed = await runtime.exec(handle, { argv: ["cat"], stdin: "fed through stdin\n" });
  assert.equal(fed.stdout, "fed through stdin\n");
  const bytes = Uint8Array.from({ length: 256 }, (_, index) => index);
  const counted = await runtime.exec(handle, { shell: "wc -c", stdin: bytes });
  assert.equal(counted.stdout.trim(), "256");
  const empty = await runtime.exec(handle, { argv: ["cat"], timeoutMs: 5_000 });
  assert.deepEqual([empty.stdout, empty.exitCode, empty.timedOut], ["", 0, false]);
});

test("execStream yields started, then output as it happens with exact bytes, then exited", async () => {
  const events: ExecEvent[] = [];
  // When each stdout chunk arrived, measured from the stream's start.
  const arrivals: { at: number; data: string }[] = [];
  const started = performance.now();
  for await (const event of runtime.execStream(handle, { shell: "printf '\\377\\000ok'; sleep 0.6; echo late" })) {
    if (event.type === "stdout") arrivals.push({ at: performance.now() - started, data: event.data });
    events.push(event);
  }
  assert.equal(events[0]?.type, "started");
  assert.equal(events.at(-1)?.type, "exited");
  const bytes = events.flatMap((event) => (event.type === "stdout" ? [...event.bytes] : []));
  assert.deepEqual(bytes, [0xff, 0x00, ...Buffer.from("oklate\n")]);
  const exited = events.at(-1) as Extract<ExecEvent, { type: "exited" }>;
  assert.equal(exited.result.stdout, events.map((event) => (event.type === "stdout" ? event.data : "")).join(""));
  // The first bytes came while the command slept: a chunk of their own, well before the last one.
  const lateAt = arrivals.find((arrival) => arrival.data.includes("late"))?.at ?? 0;
  assert.ok(!arrivals[0]?.data.includes("late"), JSON.stringify(arrivals));
  assert.ok(lateAt - (arrivals[0]?.at ?? lateAt) > 300, `the output arrived at ${JSON.stringify(arrivals)}`);
});

test("the run budget kills the command and everything it started: timedOut, exitCode null", async () => {
  const started = performance.now();
  const result = await runtime.exec(handle, {
    shell: "sleep 30 & echo $! > bg.pid; echo started; wait",
    timeoutMs: 700,
  });
  assert.deepEqual([result.exitCode, result.timedOut, result.stdout], [null, true, "started\n"]);
  assert.ok(performance.now() - started < 4_000, "killed promptly, not at the server-side timeout");
  await waitFor(async () => (await runtime.exec(handle, { shell: aliveProbe("bg.pid") })).stdout === "dead\n", {
    what: "the background child to be killed with its parent",
  });
});

test("the output cap truncates at the byte and kills the command", async () => {
  const started = performance.now();
  const result = await runtime.exec(handle, {
    shell: "yes 0123456789 | head -c 100000; sleep 30",
    maxOutputBytes: 1000,
  });
  assert.equal(result.truncated, true);
  assert.equal(result.exitCode, null);
  assert.equal(Buffer.byteLength(result.stdout), 1000);
  assert.ok(performance.now() - started < 5_000);
});

test("aborting an exec rejects at once with ABORTED and kills the command", async () => {
  const controller = new AbortController();
  const running = runtime.exec(handle, { shell: "echo $$ > aborted.pid; sleep 30" }, { signal: controller.signal });
  const probe = async () => (await runtime.exec(handle, { shell: aliveProbe("aborted.pid") })).stdout;
  // The probe works: it sees the command alive once it runs.
  await waitFor(async () => (await probe()) === "alive\n", { what: "the command to run" });
  const abortedAt = performance.now();
  controller.abort(new Error("caller gave up"));
  await expectCode(running, "ABORTED");
  assert.ok(performance.now() - abortedAt < 2_000, "long before the 30 s command would end");
  await waitFor(async () => (await probe()) === "dead\n", { what: "the aborted command to die" });
});

test("spawn: stdin stays open; a write after closeStdin is INVALID_REQUEST, after the exit NOT_FOUND", async () => {
  const process = await runtime.spawn(handle, { shell: 'read -r line; echo "got:$line"; exit 4' });
  await process.write("hello\n");
  const result = await process.result;
  assert.deepEqual([result.stdout, result.exitCode], ["got:hello\n", 4]);
  await expectCode(process.write("late\n"), "NOT_FOUND");
  await process.closeStdin();
  await expectCode(process.write("later\n"), "INVALID_REQUEST");
  const prefixed = await runtime.spawn(handle, { argv: ["cat"], stdin: "first " });
  await prefixed.write("second");
  await prefixed.closeStdin();
  assert.equal((await prefixed.result).stdout, "first second", "request.stdin is written before the writes");
  const killed = await runtime.spawn(handle, { argv: ["sleep", "30"] });
  await killed.kill();
  await killed.kill();
  assert.equal((await killed.result).exitCode, null);
});

test("invalid requests are refused before any request", async () => {
  emulator.resetRequests();
  await expectCode(runtime.exec(handle, { argv: [] }), "INVALID_REQUEST");
  await expectCode(runtime.exec(handle, { shell: "true", cwd: "../outside" }), "INVALID_REQUEST");
  await expectCode(runtime.exec(handle, { shell: "true", env: { SANDPORT_EXEC_ID: "forged" } }), "INVALID_REQUEST");
  await expectCode(runtime.exec(handle, { argv: ["echo", "x".repeat(70_000)] }), "INVALID_REQUEST");
  await expectCode(runtime.exec(handle, { shell: "true", maxOutputBytes: 2 ** 40 }), "INVALID_REQUEST");
  await expectCode(runtime.spawn(handle, { argv: ["true"], timeoutMs: -1 }), "INVALID_REQUEST");
  await expectCode(runtime.exec({ ...handle, id: "sb-../x" }, { argv: ["true"] }), "INVALID_REQUEST");
  assert.equal(emulator.countRequests(), 0);
});

test("an exec is one start, its stdin's end, its two streams and its wait", async () => {
  emulator.resetRequests();
  await runtime.exec(handle, { argv: ["true"] });
  assert.deepEqual(
    emulator.requests.map((request) => request.route.replace(ROUTER, "")).sort(),
    ["TaskExecStart", "TaskExecStdinWrite", "TaskExecStdioRead", "TaskExecStdioRead", "TaskExecWait"].sort(),
  );
});
