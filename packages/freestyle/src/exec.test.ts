// exec through the real freestyle SDK against the Freestyle emulator: what each
// request carries, quoting, cwd and env, stdin in the request and staged, the
// output cap, timeouts, refusals and lost answers. Long commands (the SDK's
// background polling), deadlines and aborts are in long-exec.wire.test.ts.
import assert from "node:assert/strict";
import { test } from "node:test";
import { quoteShellArg, RESERVED_ENV, SandportError } from "@sandport/core";
import { MAX_COMMAND_BYTES } from "@sandport/core/adapter";
import { expectCode } from "@sandport/testkit/assertions";
import { emulated } from "../test/emulated.js";
import { API_STDIN_BYTES, planCommand } from "./exec.js";
import { resolveOptions } from "./options.js";

const EXEC = "POST /v5/vms/:id/exec-await";

/** Every exec-await body the runtime sent, through a recording transport in front of the emulator. */
const sent: Record<string, unknown>[] = [];
const { emulator, runtime, runtimeWith } = await emulated({
  owner: "exec-tests",
  runBudgetMs: 123_000,
  fetch: (input, init) => {
    if (String(input).endsWith("/exec-await")) sent.push(JSON.parse(String(init?.body)));
    return globalThis.fetch(input, init);
  },
});
const handle = await runtime.launch({ env: { FROM_LAUNCH: "launch", BOTH: "launch" } });
const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

test("every command carries its timeout (the caller's, else the run budget), the Linux user and a marker", async () => {
  sent.length = 0;
  await runtime.exec(handle, { argv: ["true"] });
  await runtime.exec(handle, { argv: ["true"], timeoutMs: 4_000 });
  assert.deepEqual(
    sent.map((body) => body.timeoutMs),
    [123_000, 4_000],
  );
  for (const body of sent) {
    assert.equal(body.linuxUser, "root");
    assert.match(String((body.env as Record<string, string>).SANDPORT_EXEC_ID), /^[0-9a-f-]{36}$/);
  }
});

test("argv reaches the program byte-identical and nothing in it runs", async () => {
  const argv = ["it's", "a b", "$(touch pwned)", "`id`", "line\nbreak", "ünï ✓", "", "--", "*", "semi;colon", ")", "#"];
  const result = await runtime.exec(handle, { argv: ["printf", "[%s]", ...argv] });
  assert.equal(result.stdout, argv.map((arg) => `[${arg}]`).join(""));
  assert.equal(result.exitCode, 0);
  await expectCode(runtime.readFile(handle, "pwned"), "NOT_FOUND");
});

test("cwd is the workspace (or inside it); request env overrides the launch env; exit codes are results", async () => {
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
  assert.equal((await runtime.exec(handle, { shell: 'basename "$PWD"' })).stdout, "workspace\n");
});

test("stdin up to 1 MiB travels in the request; more is staged as a file that the command removes", async () => {
  sent.length = 0;
  assert.equal((await runtime.exec(handle, { argv: ["cat"], stdin: "hello\nworld" })).stdout, "hello\nworld");
  assert.equal(sent[0]?.stdin, Buffer.from("hello\nworld").toString("base64"));
  const exact = await runtime.exec(handle, { shell: "wc -c", stdin: new Uint8Array(API_STDIN_BYTES).fill(1) });
  assert.equal(exact.stdout.trim(), String(API_STDIN_BYTES));
  emulator.resetRequests();
  const large = new Uint8Array(API_STDIN_BYTES + 10).map((_, index) => index % 251);
  const staged = await runtime.exec(handle, { shell: "od -An -v -tx1 | tr -d ' \\n' | sha256sum", stdin: large });
  const expected = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(Buffer.from(large).toString("hex")));
  assert.equal(staged.stdout.split(" ")[0], Buffer.from(expected).toString("hex"));
  assert.deepEqual(
    emulator.requests.map((request) => request.route),
    ["PUT /v5/vms/:id/fs/write", EXEC],
  );
  const left = await runtime.exec(handle, { shell: "ls -A ../.sandport/stdin | wc -l" });
  assert.equal(left.stdout.trim(), "0", "the staged stdin file was removed");
  assert.equal((await runtime.exec(handle, { argv: ["cat"], timeoutMs: 5_000 })).stdout, "", "no stdin: end of input");
});

test("past maxOutputBytes the output is cut at exactly the cap and the producer is stopped", async () => {
  const started = performance.now();
  const result = await runtime.exec(handle, { argv: ["yes"], maxOutputBytes: 4096, timeoutMs: 20_000 });
  assert.deepEqual([result.truncated, result.timedOut, result.exitCode], [true, false, null]);
  assert.equal(result.stdout, "y\n".repeat(2048));
  assert.ok(performance.now() - started < 5_000, "stopped well before its timeout");
  const both = await runtime.exec(handle, {
    shell: "printf '%03000d' 0; printf '%03000d' 1 >&2",
    maxOutputBytes: 4096,
  });
  assert.deepEqual([both.stdout.length, both.stderr.length, both.truncated], [3000, 1096, true]);
  const exact = await runtime.exec(handle, { shell: "printf '%04096d' 0", maxOutputBytes: 4096 });
  assert.deepEqual([exact.truncated, exact.stdout.length, exact.exitCode], [false, 4096, 0]);
});

test("a command past its timeout is killed with its children: timedOut, exitCode null", async () => {
  const started = performance.now();
  const result = await runtime.exec(handle, { shell: "(sleep 1; echo late > late.txt) & sleep 30", timeoutMs: 300 });
  assert.deepEqual([result.timedOut, result.exitCode], [true, null]);
  assert.ok(performance.now() - started < 3_000);
  await new Promise((resolve) => setTimeout(resolve, 1_300));
  await expectCode(runtime.readFile(handle, "late.txt"), "NOT_FOUND");
});

test("a command Freestyle refused (429, 503) is sent again; one whose answer was lost is not repeated, but killed", async () => {
  emulator.injectFault({ route: EXEC, fault: { kind: "status", status: 503 } });
  emulator.injectFault({ route: EXEC, fault: { kind: "status", status: 429 } });
  emulator.resetRequests();
  assert.equal((await runtime.exec(handle, { shell: "echo ran >> runs.txt" })).exitCode, 0);
  assert.equal(emulator.countRequests(EXEC), 3, "two refusals, one run");
  assert.equal(decode(await runtime.readFile(handle, "runs.txt")), "ran\n", "ran exactly once");

  emulator.injectFault({ route: EXEC, fault: { kind: "status", status: 502 } });
  const unknown = await expectCode(runtime.exec(handle, { argv: ["true"] }), "PROVIDER_UNAVAILABLE");
  assert.deepEqual([unknown.retryable, unknown.details.outcomeUnknown], [false, true]);
  assert.deepEqual(await runtime.settle(), [], "the kill after an unknown outcome ran");

  // The emulator drops the connection after the command has ended: it ran once, and is not sent again.
  emulator.injectFault({ route: EXEC, fault: { kind: "lost-response" } });
  emulator.resetRequests();
  const lost = await expectCode(runtime.exec(handle, { shell: "echo ran >> lost.txt" }), "PROVIDER_UNAVAILABLE");
  assert.deepEqual([lost.retryable, lost.details.outcomeUnknown], [false, true]);
  assert.deepEqual(await runtime.settle(), [], "the kill ran");
  assert.equal(emulator.countRequests(EXEC), 2, "the command, then the kill");
  assert.equal(decode(await runtime.readFile(handle, "lost.txt")), "ran\n");
});

test("a kill that reaches the VM before its command leaves a cancel file: the command then runs nothing", async () => {
  const plan = planCommand(resolveOptions({ apiKey: "k" }), { shell: "echo ran > cancelled.txt" });
  const marker = plan.marker;
  await runtime.exec(handle, { shell: `mkdir -p ../.sandport/cancel && : > ../.sandport/cancel/${marker}` });
  const raw = await runtime.exec(handle, { shell: `cd .. && sh -c ${quoteShellArg(plan.command)}` });
  assert.equal(raw.exitCode, 125);
  await expectCode(runtime.readFile(handle, "cancelled.txt"), "NOT_FOUND");
  const gone = await runtime.exec(handle, { shell: `test ! -e ../.sandport/cancel/${marker}` });
  assert.equal(gone.exitCode, 0, "the cancel file is consumed");
});

test("invalid requests are refused before any request", async () => {
  emulator.resetRequests();
  await expectCode(runtime.exec(handle, { argv: [] }), "INVALID_REQUEST");
  await expectCode(runtime.exec(handle, { argv: ["true"], cwd: "../out" }), "INVALID_REQUEST");
  await expectCode(runtime.exec(handle, { argv: ["true"], timeoutMs: 86_400_001 }), "INVALID_REQUEST");
  await expectCode(runtime.exec(handle, { argv: ["echo", "x".repeat(MAX_COMMAND_BYTES)] }), "INVALID_REQUEST");
  await expectCode(runtime.exec(handle, { argv: ["true"], env: { SANDPORT_EXEC_ID: "x" } }), "INVALID_REQUEST");
  await expectCode(runtime.exec({ ...handle, id: "../x" }, { argv: ["true"] }), "INVALID_REQUEST");
  assert.equal(emulator.countRequests(), 0);
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

test("another runtime instance (a new process) reattaches and still sees the launch env, kept in the VM", async () => {
  const reopened = runtimeWith({});
  const found = await reopened.getById(handle.id);
  assert.ok(found);
  assert.equal((await reopened.exec(found, { shell: 'echo "$FROM_LAUNCH"' })).stdout, "launch\n");
});
