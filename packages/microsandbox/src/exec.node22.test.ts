// exec, execStream and spawn through the real SDK: what agentd is sent (argv
// as given, stdin closed explicitly), what one command costs, and the edges
// of a live stdin.
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectCode } from "@sandport/testkit/assertions";
import { emulated } from "../test/emulated.js";

const { emulator, runtime } = await emulated({ owner: "exec" });
const handle = await runtime.launch({ env: { FROM_LAUNCH: "launch" } });

test("one command is one lookup and one agent session; argv is sent as given, a script to /bin/sh -c", async () => {
  emulator.resetRequests();
  const result = await runtime.exec(handle, { argv: ["printf", "%s|", "a b", "$HOME", "*"], env: { EXTRA: "1" } });
  assert.equal(result.stdout, "a b|$HOME|*|");
  assert.deepEqual(
    emulator.requests.map((request) => request.route),
    ["GET /v1/sandboxes/by-name/:name", "GET /v1/sandboxes/:id/agent"],
  );
  assert.deepEqual(
    emulator.agentOperations.map((operation) => operation.operation),
    ["core.exec.request"],
  );
  const shell = await runtime.exec(handle, {
    shell: 'echo "$0:$FROM_LAUNCH:$EXTRA:$SANDPORT_EXEC_ID"',
    env: { EXTRA: "2" },
  });
  assert.match(
    shell.stdout,
    /^\/bin\/sh:launch:2:[0-9a-f-]{36}\n$/,
    "the launch env, the request env, the kill marker",
  );
  await expectCode(runtime.exec(handle, { argv: ["true"], env: { SANDPORT_EXEC_ID: "x" } }), "INVALID_REQUEST");
});

test("without stdin a command reads EOF at once (agentd gives every command a pipe: the adapter closes it)", async () => {
  const started = performance.now();
  const result = await runtime.exec(handle, { argv: ["cat"], timeoutMs: 5_000 });
  assert.deepEqual([result.exitCode, result.timedOut, result.stdout], [0, false, ""]);
  assert.ok(performance.now() - started < 2_000);
});

test("a command agentd cannot start (a missing working directory) runs nothing and rejects NOT_FOUND", async () => {
  const error = await expectCode(
    runtime.exec(handle, { shell: "echo ran > ran.txt", cwd: "no/such/dir" }),
    "NOT_FOUND",
  );
  assert.match(error.message, /could not start "\/bin\/sh" in \/workspace\/no\/such\/dir/);
  await expectCode(runtime.readFile(handle, "ran.txt"), "NOT_FOUND");
  await expectCode(runtime.spawn(handle, { argv: ["cat"], cwd: "no/such/dir" }), "NOT_FOUND");
});

test("a cwd outside the workspace is sent as it is: the command runs in guest /tmp, and a missing one is NOT_FOUND", async () => {
  const inTmp = await runtime.exec(handle, { shell: "pwd; echo here > cwd-probe.txt", cwd: "/tmp" });
  assert.equal(inTmp.exitCode, 0, inTmp.stderr);
  // The emulated guest filesystem is a backend directory: pwd names where guest /tmp is kept there.
  assert.match(inTmp.stdout, /\/tmp\n$/);
  await expectCode(runtime.readFile(handle, "cwd-probe.txt"), "NOT_FOUND");
  const error = await expectCode(runtime.exec(handle, { argv: ["true"], cwd: "/tmp/no-such-dir" }), "NOT_FOUND");
  assert.equal(error.details.cwd, "/tmp/no-such-dir");
});

test("a command that closes its stdin: later writes are dropped by the agent, and its output still arrives", async () => {
  const process = await runtime.spawn(handle, { shell: "exec 0<&-; sleep 0.3; echo survived" });
  await new Promise((resolve) => setTimeout(resolve, 100));
  await process.write("nobody reads this\n");
  const result = await process.result;
  assert.deepEqual([result.exitCode, result.stdout], [0, "survived\n"]);
});

test("spawn: stdin given with the request is written first; writes after closeStdin or exit are refused", async () => {
  const process = await runtime.spawn(handle, { argv: ["cat"], stdin: "first\n" });
  await process.write(new TextEncoder().encode("second\n"));
  await process.closeStdin();
  await expectCode(() => process.write("third\n"), "INVALID_REQUEST");
  const result = await process.result;
  assert.deepEqual([result.exitCode, result.stdout], [0, "first\nsecond\n"]);
  await expectCode(() => process.write("late\n"), "INVALID_REQUEST");
  await process.closeStdin();
  await process.kill();
  const done = await runtime.spawn(handle, { argv: ["true"] });
  await done.result;
  await expectCode(() => done.write("late\n"), "NOT_FOUND");
  await expectCode(() => done.write(42 as never), "INVALID_REQUEST");
  assert.throws(() => {
    for (const _ of [done.events, done.events]) _[Symbol.asyncIterator]();
  }, /iterated once/);
});

test("spawn: the output cap and the run budget end the process; a refused request sends nothing", async () => {
  const capped = await runtime.spawn(handle, { argv: ["yes"], maxOutputBytes: 1024 });
  const result = await capped.result;
  assert.deepEqual([result.truncated, result.exitCode, result.stdout.length], [true, null, 1024]);
  const slow = await runtime.spawn(handle, { argv: ["sleep", "30"], timeoutMs: 300 });
  const timed = await slow.result;
  assert.deepEqual([timed.timedOut, timed.exitCode], [true, null]);
  emulator.resetRequests();
  await expectCode(runtime.spawn(handle, { argv: [] }), "INVALID_REQUEST");
  await expectCode(runtime.spawn(handle, { argv: ["true"], cwd: "../out" }), "INVALID_REQUEST");
  assert.deepEqual(emulator.requests, []);
});

test("execStream: output bytes are exact, and a consumer that leaves early stops the command", async () => {
  const bytes: number[] = [];
  for await (const event of runtime.execStream(handle, { shell: "printf '\\377\\000\\200'" })) {
    if (event.type === "stdout") bytes.push(...event.bytes);
  }
  assert.deepEqual(bytes, [0xff, 0x00, 0x80]);
  for await (const event of runtime.execStream(handle, { shell: "echo go; sleep 1; echo late > stream-late.txt" })) {
    if (event.type === "stdout") break;
  }
  await new Promise((resolve) => setTimeout(resolve, 1_400));
  await expectCode(runtime.readFile(handle, "stream-late.txt"), "NOT_FOUND");
});
