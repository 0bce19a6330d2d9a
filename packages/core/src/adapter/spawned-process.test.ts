import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { SandportError } from "../errors/sandport-error.js";
import type { ExecEvent } from "../port/exec-event.js";
import type { VendorCommand, VendorEnd } from "./command-engine.js";
import { FakeContext } from "./fake-context.js";
import { type StdinCommand, spawnCommand, spawnCommands, type VendorStdin } from "./spawned-process.js";

/** A process that echoes its stdin to stdout and exits 0 when its stdin is closed, or "killed" on a kill. */
function echoVendor() {
  let end: (value: VendorEnd) => void = () => {};
  let output: (stream: "stdout" | "stderr", data: string) => void = () => {};
  const sent: string[] = [];
  const vendor: VendorCommand = {
    start: async (out) => {
      output = out;
      return { pid: 9, ended: new Promise<VendorEnd>((resolve) => (end = resolve)) };
    },
    kill: async () => end({ kind: "killed" }),
  };
  const stdin: VendorStdin = {
    write: async (data) => {
      const text = typeof data === "string" ? data : new TextDecoder().decode(data);
      sent.push(text);
      output("stdout", text);
    },
    close: async () => {
      sent.push("<close>");
      end({ kind: "exited", exitCode: 0 });
    },
  };
  return { vendor, stdin, sent };
}

const base = { provider: "test", timeoutMs: 60_000, maxOutputBytes: 1024, signal: new AbortController().signal };

describe("spawnCommand and SpawnedProcess", () => {
  test("first write, writes in order, close, exited last; later writes refused by kind", async () => {
    const { vendor, stdin, sent } = echoVendor();
    const process = await spawnCommand(vendor, { ...base, stdin: () => stdin, firstWrite: "a" });
    await Promise.all([process.write("b"), process.write(new TextEncoder().encode("c"))]);
    await process.closeStdin();
    await process.closeStdin();
    const events: ExecEvent[] = [];
    for await (const event of process.events) events.push(event);
    assert.deepEqual(sent, ["a", "b", "c", "<close>"]);
    assert.deepEqual(events.at(0)?.type, "started");
    assert.deepEqual(events.at(-1)?.type, "exited");
    assert.equal((await process.result).stdout, "abc");
    const afterClose = await process.write("d").catch((error: unknown) => error);
    assert.ok(SandportError.hasCode(afterClose, "INVALID_REQUEST"));
    assert.throws(() => process.events[Symbol.asyncIterator](), /iterated once/);
  });

  test("a write after exit is NOT_FOUND; kill after exit is a no-op", async () => {
    const { vendor, stdin } = echoVendor();
    const process = await spawnCommand(vendor, { ...base, stdin: () => stdin });
    await process.kill();
    const result = await process.result;
    assert.deepEqual([result.exitCode, result.timedOut], [null, false]);
    const late = await process.write("x").catch((error: unknown) => error);
    assert.ok(SandportError.hasCode(late, "NOT_FOUND"));
    await process.kill();
  });

  test("closeStdin after exit sends nothing, and a write after it is INVALID_REQUEST, as after any closeStdin", async () => {
    const { vendor, stdin, sent } = echoVendor();
    const process = await spawnCommand(vendor, { ...base, stdin: () => stdin });
    await process.kill();
    await process.result;
    await process.closeStdin();
    const late = await process.write("x").catch((error: unknown) => error);
    assert.ok(SandportError.hasCode(late, "INVALID_REQUEST"));
    assert.deepEqual(sent, []);
  });

  test("the caller's signal kills the spawned process", async () => {
    const { vendor, stdin } = echoVendor();
    const caller = new AbortController();
    const process = await spawnCommand(vendor, { ...base, stdin: () => stdin, callerSignal: caller.signal });
    caller.abort();
    assert.equal((await process.result).exitCode, null);
  });

  test("a start whose signal fired as it returned kills the process and rejects with the reason", async () => {
    const { vendor, stdin } = echoVendor();
    const controller = new AbortController();
    let killed = false;
    const start = vendor.start.bind(vendor);
    vendor.start = async (output, signal) => {
      const started = await start(output, signal);
      controller.abort(new Error("deadline"));
      return started;
    };
    const kill = vendor.kill.bind(vendor);
    vendor.kill = async (process, signal) => {
      killed = true;
      return kill(process, signal);
    };
    await assert.rejects(spawnCommand(vendor, { ...base, signal: controller.signal, stdin: () => stdin }), /deadline/);
    assert.equal(killed, true);
  });

  test("a first write that fails (not because the process exited) kills the process and rejects with its error", async () => {
    const { vendor, stdin } = echoVendor();
    let killed = false;
    const kill = vendor.kill.bind(vendor);
    vendor.kill = async (process, signal) => {
      killed = true;
      return kill(process, signal);
    };
    const refused = new SandportError({
      code: "PROVIDER_UNAVAILABLE",
      provider: "test",
      retryable: true,
      message: "down",
    });
    const failing: VendorStdin = { ...stdin, write: async () => Promise.reject(refused) };
    const spawned = spawnCommand(vendor, { ...base, stdin: () => failing, firstWrite: "a" });
    await assert.rejects(spawned, (error: unknown) => error === refused);
    assert.equal(killed, true, "nobody holds the process, so it must not go on running");
  });
});

describe("spawnCommands", () => {
  test("plans before any request, marks the sandbox, drives the command's own stdin and its first write", async () => {
    const context = new FakeContext();
    context.add("a");
    context.known.markPristine("a");
    const { vendor, stdin, sent } = echoVendor();
    const command: StdinCommand = { ...vendor, stdin };
    const { spawn } = spawnCommands<FakeContext, { first: string }, { id: string }>({
      plan: (_context, request) => {
        if (request.stdin === undefined)
          throw new SandportError({ code: "INVALID_REQUEST", provider: "fake", message: "no stdin" });
        return { first: String(request.stdin) };
      },
      startTimeoutMs: (spawning) => spawning.options.timeouts.lookupMs,
      start: (_context, plan) => ({ command, timeoutMs: 60_000, maxOutputBytes: 1024, firstWrite: plan.first }),
    });
    const refused = await spawn(context, { id: "a" }, { argv: ["cat"] }).catch((error: unknown) => error);
    assert.ok(SandportError.hasCode(refused, "INVALID_REQUEST"));
    assert.equal(context.describes + context.connects, 0);
    const caller = new AbortController();
    const process = await spawn(context, { id: "a" }, { argv: ["cat"], stdin: "hi" }, { signal: caller.signal });
    assert.equal(context.known.isPristine("a"), false);
    await process.write("!");
    caller.abort();
    const result = await process.result;
    assert.deepEqual([sent, result.stdout, result.exitCode], [["hi", "!"], "hi!", null]);
  });
});
