// spawn through the real e2b SDK against the E2B emulator: stdin written and
// closed, kills and aborts, typed errors, the output cap, and what older SDKs
// and envds can and cannot do.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { ExecEvent, SandboxProcess } from "@sandport/core";
import { delay, expectCode, waitFor } from "@sandport/testkit/assertions";
import * as e2b from "e2b";
import { emulated } from "../test/emulated.js";
import { planCommand } from "./command-plan.js";
import { E2BContext } from "./context.js";
import type { E2BRunOptions, E2BSandbox, E2BSdkModule } from "./internal/sdk-types.js";
import { resolveOptions } from "./options.js";
import { startRun } from "./vendor-command.js";

const CLOSE_STDIN = "rpc process.Process/CloseStdin";
const ALL_BYTES = Uint8Array.from({ length: 256 }, (_, index) => index);

const { emulator, runtime, runtimeWith } = await emulated({ owner: "spawn-tests" });
const handle = await runtime.launch();

/** Every event of a process, in order, once it has ended. */
async function drain(process: SandboxProcess): Promise<ExecEvent[]> {
  const events: ExecEvent[] = [];
  for await (const event of process.events) events.push(event);
  return events;
}

/** The next stdout text of `events` that contains `wanted` (chunks joined). */
async function readUntil(events: AsyncIterator<ExecEvent>, wanted: string): Promise<string> {
  let text = "";
  while (!text.includes(wanted)) {
    const next = await events.next();
    if (next.done) break;
    if (next.value.type === "stdout") text += next.value.data;
  }
  return text;
}

test("write, read back, closeStdin, exit code: one conversation with a running command", async () => {
  const process = await runtime.spawn(handle, { shell: 'while read -r line; do echo "got:$line"; done; exit 4' });
  const events = process.events[Symbol.asyncIterator]();
  const first = await events.next();
  assert.equal(first.value?.type, "started");
  assert.equal(typeof (first.value?.type === "started" && first.value.pid), "number");
  await process.write("one\n");
  assert.equal(await readUntil(events, "got:one\n"), "got:one\n", "answered before the next write");
  await process.write(new TextEncoder().encode("twö\n"));
  assert.equal(await readUntil(events, "got:twö\n"), "got:twö\n");
  await process.closeStdin();
  await process.closeStdin();
  const result = await process.result;
  assert.deepEqual([result.exitCode, result.stdout, result.truncated], [4, "got:one\ngot:twö\n", false]);
  await expectCode(process.write("late\n"), "INVALID_REQUEST", "a write after closeStdin");
  assert.throws(() => process.events[Symbol.asyncIterator](), /iterated once/);
});

test("stdin is byte-exact, the request's stdin comes first, and writes keep their order", async () => {
  const process = await runtime.spawn(handle, { shell: "od -An -v -tx1 | tr -d ' \\n'", stdin: ALL_BYTES.slice(0, 3) });
  const writes = [process.write(ALL_BYTES.slice(3, 100)), process.write(ALL_BYTES.slice(100))];
  await Promise.all(writes);
  await process.closeStdin();
  assert.equal((await process.result).stdout, Buffer.from(ALL_BYTES).toString("hex"));
});

test("kill() ends the command and its children; twice is fine; a later write is NOT_FOUND", async () => {
  const process = await runtime.spawn(handle, {
    shell: "(sleep 1; echo late > killed.txt) & echo started > kill-started.txt; cat",
  });
  await process.write("still here\n");
  // Killed while it runs, its child forked (not while the command is still starting).
  await waitFor(() => runtime.readFile(handle, "kill-started.txt").catch(() => undefined), {
    what: "the command to run",
  });
  const started = performance.now();
  await Promise.all([process.kill(), process.kill()]);
  const result = await process.result;
  assert.ok(performance.now() - started < 3_000);
  assert.deepEqual([result.exitCode, result.timedOut], [null, false]);
  const gone = await expectCode(process.write("after the end\n"), "NOT_FOUND");
  assert.match(gone.message, /exited/);
  await process.kill();
  await process.closeStdin();
  await delay(1_200);
  await expectCode(runtime.readFile(handle, "killed.txt"), "NOT_FOUND");
});

test("a write that races the command's exit is NOT_FOUND, never a hang", async () => {
  const process = await runtime.spawn(handle, { argv: ["true"] });
  await process.result;
  await expectCode(process.write("x"), "NOT_FOUND");
  const events = await drain(process);
  assert.deepEqual(
    events.map((event) => event.type),
    ["started", "exited"],
  );
});

test("aborting op.signal after the start kills the command; before it, nothing is sent", async () => {
  const controller = new AbortController();
  const process = await runtime.spawn(handle, { argv: ["cat"] }, { signal: controller.signal });
  controller.abort(new Error("the caller gave up"));
  const result = await process.result;
  assert.equal(result.exitCode, null);
  emulator.resetRequests();
  await expectCode(runtime.spawn(handle, { argv: ["cat"] }, { signal: controller.signal }), "ABORTED");
  assert.equal(emulator.countRequests(), 0);
});

test("the output cap holds for a slow reader: cut at the cap, the command stopped, events bounded", async () => {
  const process = await runtime.spawn(handle, { argv: ["yes"], maxOutputBytes: 4096, timeoutMs: 20_000 });
  const started = performance.now();
  // Nobody reads the events until the command has ended.
  const result = await process.result;
  assert.ok(performance.now() - started < 5_000, "stopped well before its timeout");
  assert.deepEqual([result.truncated, result.exitCode, result.stdout], [true, null, "y\n".repeat(2048)]);
  const events = await drain(process);
  const bytes = events.reduce((sum, event) => sum + (event.type === "stdout" ? event.bytes.length : 0), 0);
  assert.equal(bytes, 4096, "no more output is kept than the cap");
});

test("the request's timeoutMs bounds the run: timedOut, exitCode null", async () => {
  const process = await runtime.spawn(handle, { argv: ["sleep", "30"], timeoutMs: 300 });
  const result = await process.result;
  assert.deepEqual([result.timedOut, result.exitCode], [true, null]);
});

test("invalid requests and stdin data are refused before any request", async () => {
  emulator.resetRequests();
  await expectCode(runtime.spawn(handle, { argv: [] }), "INVALID_REQUEST");
  await expectCode(runtime.spawn(handle, { shell: "cat", cwd: "../out" }), "INVALID_REQUEST");
  await expectCode(runtime.spawn(handle, { argv: ["cat"], env: { SANDPORT_EXEC_ID: "x" } }), "INVALID_REQUEST");
  await expectCode(runtime.spawn({ ...handle, id: "../x" }, { argv: ["cat"] }), "INVALID_REQUEST");
  assert.equal(emulator.countRequests(), 0);
  const process = await runtime.spawn(handle, { argv: ["cat"] });
  emulator.resetRequests();
  await expectCode(process.write(42 as unknown as string), "INVALID_REQUEST");
  assert.equal(emulator.countRequests(), 0);
  await process.kill();
});

/** The real SDK, as an SDK before 2.13 shows itself: no `commands.closeStdin`. */
function withoutCloseStdin(sandbox: E2BSandbox): E2BSandbox {
  Object.defineProperty(sandbox.commands, "closeStdin", { value: undefined });
  return sandbox;
}

test("an SDK before 2.13: closeStdin and non-UTF-8 bytes are UNSUPPORTED, text still flows", async () => {
  const sdk: E2BSdkModule = {
    Sandbox: {
      create: async (template, options) => withoutCloseStdin(await e2b.Sandbox.create(template, options)),
      connect: async (id, options) => withoutCloseStdin(await e2b.Sandbox.connect(id, options)),
      kill: (id, options) => e2b.Sandbox.kill(id, options),
      getInfo: (id, options) => e2b.Sandbox.getInfo(id, options),
      pause: (id, options) => e2b.Sandbox.pause(id, options),
      list: (options) => e2b.Sandbox.list(options),
    },
  };
  const older = runtimeWith({ sdk });
  const sandbox = await older.launch();
  const process = await older.spawn(sandbox, { shell: 'read -r line; echo "got:$line"' });
  await expectCode(process.write(Uint8Array.of(0xff, 0x0a)), "UNSUPPORTED");
  const refused = await expectCode(process.closeStdin(), "UNSUPPORTED");
  assert.match(refused.message, /2\.13/);
  await process.write(new TextEncoder().encode("ünï\n"));
  assert.equal((await process.result).stdout, "got:ünï\n");
  await older.destroy(sandbox);
});

test("a sandbox whose envd predates CloseStdin: closeStdin is UNSUPPORTED, stdin stays open", async () => {
  const old = await emulated({ owner: "old-envd" }, { envdVersion: "0.5.1" });
  const sandbox = await old.runtime.launch();
  const process = await old.runtime.spawn(sandbox, { argv: ["cat"] });
  const refused = await expectCode(process.closeStdin(), "UNSUPPORTED");
  assert.match(refused.message, /0\.5\.2/);
  assert.ok(refused.cause instanceof e2b.SandboxError, "the SDK's refusal is the cause");
  await process.write("still open\n");
  assert.equal(await readUntil(process.events[Symbol.asyncIterator](), "\n"), "still open\n", "cat still reads");
  await process.kill();
  assert.equal(old.emulator.countRequests(CLOSE_STDIN), 0, "the SDK refused before sending anything");
});

test("a start cancelled midway sweeps the command's marker: envd may have started it anyway", async () => {
  // The emulator cannot lose a start after running it, so a stand-in for the SDK's commands does.
  const sent: string[] = [];
  const run = (command: string, options: E2BRunOptions) => {
    const { signal } = options;
    if (signal) return new Promise<never>((_, reject) => signal.addEventListener("abort", () => reject(signal.reason)));
    sent.push(command);
    return Promise.resolve({ pid: 7, wait: async () => ({ exitCode: 0, stdout: "", stderr: "" }) });
  };
  const sandbox = { sandboxId: "sbx", commands: { run, kill: async () => false } } as unknown as E2BSandbox;
  const context = new E2BContext(resolveOptions({ apiKey: "k" }));
  const plan = planCommand(context.options, { argv: ["sleep", "30"] }, true);
  const controller = new AbortController();
  const starting = startRun(context, "sbx", sandbox, plan, { signal: controller.signal, openStdin: true });
  controller.abort(new Error("gave up"));
  await assert.rejects(starting);
  await waitFor(() => sent.length === 1, { what: "the marker sweep" });
  assert.ok(sent[0]?.includes(plan.marker ?? "no marker"), "the sweep looks for this command's marker");
});
