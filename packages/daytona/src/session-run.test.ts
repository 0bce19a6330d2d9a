// execStream and spawn through the real SDK's sessions and log WebSocket
// against the Daytona emulator: one session per command, deleted afterwards;
// merged output live and in order; stdin framed through the relay.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { ExecEvent } from "@sandport/core";
import { delay, expectCode, waitFor } from "@sandport/testkit/assertions";
import { emulated } from "../test/emulated.js";

const SESSION = "POST /toolbox/:id/process/session";
const DELETE_SESSION = "DELETE /toolbox/:id/process/session/:sessionId";
const INPUT = "POST /toolbox/:id/process/session/:sessionId/command/:commandId/input";

const { emulator, runtime } = await emulated({ owner: "stream-tests" });
const handle = await runtime.launch({ env: { FROM_LAUNCH: "launch" } });

async function collect(events: AsyncIterable<ExecEvent>): Promise<ExecEvent[]> {
  const all: ExecEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

test("execStream: its own session (deleted after), output merged in written order, cwd and env brought by the script", async () => {
  await runtime.mkdir(handle, "work");
  emulator.resetRequests();
  const events = await collect(
    runtime.execStream(handle, {
      shell: 'echo "$FROM_LAUNCH $REQUEST_VAR $(basename "$PWD")"; echo err >&2; echo out; exit 4',
      cwd: "work",
      env: { REQUEST_VAR: "it's" },
    }),
  );
  assert.equal(events[0]?.type, "started");
  const exited = events.at(-1);
  assert.ok(exited?.type === "exited");
  assert.deepEqual(
    [exited.result.exitCode, exited.result.stdout, exited.result.stderr],
    [4, "launch it's work\nerr\nout\n", ""],
  );
  const chunks = events.flatMap((event) => (event.type === "stdout" ? [event.data] : []));
  assert.equal(chunks.join(""), exited.result.stdout);
  assert.equal(emulator.countRequests(SESSION), 1);
  await waitFor(() => emulator.countRequests(DELETE_SESSION) === 1, {
    what: "the session to be deleted once the command ended",
  });
});

test("execStream: the timeout, and a consumer that leaves, kill the command and its session", async () => {
  const events = await collect(runtime.execStream(handle, { shell: "echo before; sleep 30", timeoutMs: 500 }));
  const exited = events.at(-1);
  assert.ok(exited?.type === "exited");
  assert.deepEqual([exited.result.timedOut, exited.result.exitCode, exited.result.stdout], [true, null, "before\n"]);
  for await (const event of runtime.execStream(handle, { shell: "echo first; sleep 1; echo late > late.txt" })) {
    if (event.type === "stdout") break;
  }
  await delay(1_500);
  await expectCode(runtime.readFile(handle, "late.txt"), "NOT_FOUND");
});

test("spawn: input goes through the relay (never echoed), stdin closes on closeStdin, binary input arrives exactly", async () => {
  emulator.resetRequests();
  const conversation = await runtime.spawn(handle, {
    shell: 'while read -r line; do echo "got:$line"; done; echo "bye"',
  });
  await conversation.write("one\n");
  await conversation.write(new TextEncoder().encode("two é 🚀\n"));
  await conversation.closeStdin();
  const result = await conversation.result;
  assert.deepEqual([result.exitCode, result.stdout], [0, "got:one\ngot:two é 🚀\nbye\n"]);
  assert.equal(emulator.countRequests(INPUT), 3, "two writes and the end of input");
  await expectCode(conversation.write("late"), "INVALID_REQUEST");

  const bytes = Uint8Array.from({ length: 256 }, (_, index) => index);
  const dump = await runtime.spawn(handle, { shell: "od -An -tx1 -v | tr -d ' \\n'" });
  await dump.write(bytes);
  await dump.closeStdin();
  assert.equal((await dump.result).stdout, Buffer.from(bytes).toString("hex"));

  const seeded = await runtime.spawn(handle, { argv: ["head", "-n", "1"], stdin: "first line\nrest\n" });
  assert.equal((await seeded.result).stdout, "first line\n", "the request's stdin is written first");
});

test("spawn: kill and abort end the process (exit code null); a write after the end is NOT_FOUND", async () => {
  const cat = await runtime.spawn(handle, { argv: ["cat"] });
  await cat.write("still here\n");
  await cat.kill();
  await cat.kill();
  assert.equal((await cat.result).exitCode, null);
  await expectCode(cat.write("after"), "NOT_FOUND");
  const controller = new AbortController();
  const aborted = await runtime.spawn(handle, { argv: ["cat"] }, { signal: controller.signal });
  controller.abort(new Error("done"));
  assert.equal((await aborted.result).exitCode, null);
  const quick = await runtime.spawn(handle, { shell: "exit 3" });
  assert.equal((await quick.result).exitCode, 3);
  await expectCode(quick.write("x"), "NOT_FOUND");
  await quick.closeStdin();
});

const LOGS = "GET /toolbox/:id/process/session/:sessionId/command/:commandId/logs";

test("execStream: a followed log cut mid-way or refused still yields the whole output, read again from the stored log", async () => {
  for (const fault of [
    { kind: "drop-mid-stream", afterEvents: 1 },
    { kind: "status", status: 502 },
  ] as const) {
    emulator.injectFault({ route: LOGS, fault });
    const events = await collect(runtime.execStream(handle, { shell: "echo one; sleep 0.2; echo two; echo three" }));
    const exited = events.at(-1);
    assert.ok(exited?.type === "exited", `${fault.kind}: the command's result`);
    assert.deepEqual([exited.result.exitCode, exited.result.stdout], [0, "one\ntwo\nthree\n"], fault.kind);
    const chunks = events.flatMap((event) => (event.type === "stdout" ? [event.data] : []));
    assert.equal(chunks.join(""), "one\ntwo\nthree\n", `${fault.kind}: every byte was emitted once`);
  }
});

test("execStream: when the stored log cannot be read either, the call rejects PROVIDER_UNAVAILABLE with lostOutput, never a partial result", async () => {
  emulator.injectFault({ route: LOGS, fault: { kind: "drop-mid-stream", afterEvents: 1 } });
  emulator.injectFault({ route: LOGS, fault: { kind: "status", status: 500 }, times: 20 });
  const error = await expectCode(
    collect(runtime.execStream(handle, { shell: "echo one; sleep 0.2; echo two" })),
    "PROVIDER_UNAVAILABLE",
  );
  assert.equal(error.details.lostOutput, true);
  assert.equal(error.details.exitCode, 0);
  emulator.clearFaults();
});
