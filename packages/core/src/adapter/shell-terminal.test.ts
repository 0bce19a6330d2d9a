import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { describe, test } from "node:test";
import { SandportError } from "../errors/sandport-error.js";
import type { TerminalEvent, TerminalSignal, TerminalSize } from "../port/terminal.js";
import { ShellTerminal, type ShellTerminalVendor, shellTerminalPlan } from "./shell-terminal.js";

/** A vendor that records its calls; `stopped` settles at the first stop. */
function recordingVendor(overrides: Partial<ShellTerminalVendor> = {}) {
  const calls = {
    stops: 0,
    writes: [] as string[],
    sizes: [] as TerminalSize[],
    signals: [] as [TerminalSignal, number | undefined][],
  };
  let onStop: () => void = () => {};
  const stopped = new Promise<void>((resolve) => {
    onStop = resolve;
  });
  const vendor: ShellTerminalVendor = {
    stop: async () => {
      calls.stops += 1;
      onStop();
    },
    write: async (bytes) => {
      calls.writes.push(Buffer.from(bytes).toString());
    },
    resize: async (size) => {
      calls.sizes.push(size);
    },
    signal: async (signal, pid) => {
      calls.signals.push([signal, pid]);
    },
    ...overrides,
  };
  return { vendor, calls, stopped };
}

async function eventsOf(terminal: ShellTerminal): Promise<TerminalEvent[]> {
  const events: TerminalEvent[] = [];
  for await (const event of terminal.events) events.push(event);
  return events;
}

function outputOf(events: TerminalEvent[]): string {
  return events.map((event) => (event.type === "output" ? Buffer.from(event.bytes).toString() : "")).join("");
}

/** Runs the plan as a login shell would (a banner, then the typed line) in a real `/bin/sh`. */
function runPlan(plan: ReturnType<typeof shellTerminalPlan>) {
  const ran = spawnSync("/bin/sh", ["-c", `echo banner; echo '${plan.typedLine.trim()}'; ${plan.typedLine}`], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...plan.env },
  });
  assert.equal(ran.status, 0, ran.stderr.toString());
  return ran;
}

describe("shellTerminalPlan and ShellTerminal", () => {
  test("a real shell runs the typed line: the banner and echo are dropped, even fed a byte at a time; the pid is the program's", async () => {
    const plan = shellTerminalPlan("echo hi; echo $SANDPORT_TERMINAL_SCRIPT", { reportPid: true });
    assert.equal(plan.typedLine, 'exec /bin/sh -c "$SANDPORT_TERMINAL_SCRIPT"\n');
    const ran = runPlan(plan);
    const { vendor, calls } = recordingVendor();
    const terminal = new ShellTerminal("fake", plan, vendor);
    terminal.started(60_000, 1024);
    for (const byte of ran.stdout) terminal.data(Uint8Array.of(byte));
    await terminal.running(new AbortController().signal);
    await terminal.kill("SIGINT");
    terminal.finish({ kind: "exited", exitCode: 0 });
    const events = await eventsOf(terminal);
    assert.equal(outputOf(events), "hi\n\n", "the script unset its variable before the program ran");
    assert.deepEqual(calls.signals, [["SIGINT", ran.pid]]);
  });

  test("without reportPid the sequence has no pid, and signals get none", async () => {
    const plan = shellTerminalPlan("echo hi");
    const ran = runPlan(plan);
    const { vendor, calls } = recordingVendor();
    const terminal = new ShellTerminal("fake", plan, vendor);
    terminal.started(60_000, 1024);
    terminal.data(ran.stdout);
    await terminal.running(new AbortController().signal);
    await terminal.kill("SIGTERM");
    terminal.finish({ kind: "exited", exitCode: 7 });
    const events = await eventsOf(terminal);
    assert.equal(outputOf(events), "hi\n");
    assert.deepEqual(events.at(-1), {
      type: "exited",
      exitCode: 7,
      signal: null,
      timedOut: false,
      truncated: false,
      durationMs: (events.at(-1) as { durationMs: number }).durationMs,
    });
    assert.deepEqual(calls.signals, [["SIGTERM", undefined]]);
  });

  test("past the output cap the chunk is cut and the program stopped once; a vendor code after the stop is not reported", async () => {
    const plan = shellTerminalPlan("true");
    const { vendor, calls } = recordingVendor();
    const terminal = new ShellTerminal("fake", plan, vendor);
    terminal.started(60_000, 3);
    terminal.data(Buffer.concat([Buffer.from(plan.startPrefix), Buffer.from("\u0007hello")]));
    terminal.data(Buffer.from("more"));
    terminal.finish({ kind: "exited", exitCode: 0 });
    const events = await eventsOf(terminal);
    assert.equal(outputOf(events), "hel");
    assert.equal(calls.stops, 1);
    assert.deepEqual(
      { ...events.at(-1), durationMs: 0 },
      {
        type: "exited",
        exitCode: null,
        signal: null,
        timedOut: false,
        truncated: true,
        durationMs: 0,
      },
    );
  });

  test("the run budget stops the program: timedOut, no code", async () => {
    const { vendor, calls, stopped } = recordingVendor();
    const terminal = new ShellTerminal("fake", shellTerminalPlan("sleep 9"), vendor);
    terminal.started(1, 1024);
    await stopped;
    terminal.finish({ kind: "killed" });
    const exited = (await eventsOf(terminal)).at(-1);
    assert.equal(calls.stops, 1);
    assert.equal(exited?.type === "exited" && exited.timedOut, true);
    assert.equal(exited?.type === "exited" && exited.exitCode, null);
  });

  test("kill() and abort() stop once and are no timeout; an unstopped kill by the vendor has no code either", async () => {
    for (const stop of [(terminal: ShellTerminal) => terminal.kill(), (terminal: ShellTerminal) => terminal.abort()]) {
      const { vendor, calls } = recordingVendor();
      const terminal = new ShellTerminal("fake", shellTerminalPlan("sleep 9"), vendor);
      terminal.started(60_000, 1024);
      await stop(terminal);
      await terminal.kill("SIGKILL");
      terminal.finish({ kind: "exited", exitCode: 0 });
      const exited = (await eventsOf(terminal)).at(-1);
      assert.equal(calls.stops, 1);
      assert.deepEqual(exited?.type === "exited" && [exited.exitCode, exited.timedOut], [null, false]);
    }
    const terminal = new ShellTerminal("fake", shellTerminalPlan("true"), recordingVendor().vendor);
    terminal.finish({ kind: "killed" });
    const exited = (await eventsOf(terminal)).at(-1);
    assert.equal(exited?.type === "exited" && exited.exitCode, null);
  });

  test("a limit the vendor names for the shell's end is on the exited event; none is made up from a code", async () => {
    const limited = new ShellTerminal("fake", shellTerminalPlan("true"), recordingVendor().vendor);
    limited.finish({ kind: "killed", limit: "memory" });
    const exited = (await eventsOf(limited)).at(-1);
    assert.deepEqual(exited?.type === "exited" && [exited.exitCode, exited.limit], [null, "memory"]);
    const plain = new ShellTerminal("fake", shellTerminalPlan("true"), recordingVendor().vendor);
    plain.finish({ kind: "exited", exitCode: 137 });
    const end = (await eventsOf(plain)).at(-1);
    assert.equal(end?.type === "exited" && "limit" in end, false);
  });

  test("the shell ending before the sequence rejects running() with UNEXPECTED and its cause", async () => {
    const terminal = new ShellTerminal("fake", shellTerminalPlan("true"), recordingVendor().vendor);
    terminal.started(60_000, 1024);
    terminal.data(Buffer.from("login banner\r\n$ "));
    const cause = new Error("shell died");
    terminal.finish({ kind: "exited", exitCode: 1 }, cause);
    const error = await terminal.running(new AbortController().signal).catch((caught: unknown) => caught);
    assert.ok(SandportError.hasCode(error, "UNEXPECTED"));
    assert.equal(error.cause, cause);
    assert.deepEqual(
      (await eventsOf(terminal)).map((event) => event.type),
      ["exited"],
    );
  });

  test("write and resize: refused before the start and after the end; the vendor's NOT_FOUND is processExited, other errors pass", async () => {
    const broken = new Error("network");
    const { vendor, calls } = recordingVendor({
      resize: async () => {
        throw broken;
      },
      checkSize: (size) => {
        if (size.cols > 999) throw new SandportError({ code: "INVALID_REQUEST", provider: "fake", message: "big" });
      },
    });
    const terminal = new ShellTerminal("fake", shellTerminalPlan("cat"), vendor);
    assert.ok(SandportError.hasCode(await terminal.write("x").catch((error: unknown) => error), "NOT_FOUND"));
    terminal.started(60_000, 1024);
    await terminal.write("typed");
    assert.deepEqual(calls.writes, ["typed"]);
    assert.ok(
      SandportError.hasCode(await terminal.write(42 as never).catch((error: unknown) => error), "INVALID_REQUEST"),
    );
    assert.ok(
      SandportError.hasCode(await terminal.resize(1000, 10).catch((error: unknown) => error), "INVALID_REQUEST"),
    );
    assert.equal(await terminal.resize(100, 10).catch((error: unknown) => error), broken);
    terminal.finish({ kind: "exited", exitCode: 0 });
    assert.ok(SandportError.hasCode(await terminal.write("x").catch((error: unknown) => error), "NOT_FOUND"));
    assert.deepEqual(calls.writes, ["typed"]);
    const gone = new ShellTerminal("fake", shellTerminalPlan("cat"), {
      ...vendor,
      write: async () => {
        throw new SandportError({ code: "NOT_FOUND", provider: "fake", message: "no such process" });
      },
    });
    gone.started(60_000, 1024);
    const error = await gone.write("x").catch((caught: unknown) => caught);
    assert.ok(SandportError.hasCode(error, "NOT_FOUND"));
    assert.match(error.message, /process has exited/);
    // The vendor reports the end it saw: the run budget's timer goes with it.
    gone.finish({ kind: "exited", exitCode: 0 });
  });

  test("events can be iterated once", () => {
    const terminal = new ShellTerminal("fake", shellTerminalPlan("true"), recordingVendor().vendor);
    terminal.events[Symbol.asyncIterator]();
    assert.throws(
      () => terminal.events[Symbol.asyncIterator](),
      (error) => SandportError.hasCode(error, "INVALID_REQUEST"),
    );
  });
});
