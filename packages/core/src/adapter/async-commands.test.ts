import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { SandportError } from "../errors/sandport-error.js";
import type { CommandRef } from "../port/command.js";
import { OutputCollector } from "../streams/output-collector.js";
import type { AsyncCommandEnd } from "./async-command-result.js";
import { asyncCommands, unknownCommand } from "./async-commands.js";
import { FakeContext } from "./fake-context.js";

/** An in-memory provider of async commands: session id → its command id and how it stands. */
function fakeCommands() {
  const sessions = new Map<string, { commandId: string; end: AsyncCommandEnd | "running"; output: string }>();
  const starts: string[] = [];
  const find = (ref: CommandRef) => {
    const found = sessions.get(ref.sessionId);
    if (found?.commandId !== ref.commandId) throw unknownCommand("fake", ref, `no command ${ref.commandId}`);
    return found;
  };
  const commands = asyncCommands<FakeContext, { argv: readonly string[] }, { id: string }>({
    plan: (_context, request) => {
      if (!request.argv) throw new SandportError({ code: "INVALID_REQUEST", provider: "fake", message: "argv" });
      return { argv: request.argv };
    },
    start: async (_context, plan, sessionId, { sandboxId }) => {
      const known = sessions.get(sessionId);
      if (known) return known.commandId;
      starts.push(`${sandboxId}:${plan.argv.join(" ")}`);
      sessions.set(sessionId, { commandId: `c${starts.length}`, end: "running", output: "out" });
      return `c${starts.length}`;
    },
    status: async (_context, ref) => find(ref).end,
    logs: async (_context, ref) => {
      const found = find(ref);
      const output = new OutputCollector(1024);
      output.push("stdout", found.output);
      return { output, end: found.end, runningForMs: 5 };
    },
  });
  return { commands, sessions, starts };
}

describe("asyncCommands", () => {
  test("a start is planned and split before any request, marks the sandbox, and is idempotent on its session", async () => {
    const context = new FakeContext();
    context.add("a");
    context.known.markPristine("a");
    const { commands, sessions, starts } = fakeCommands();
    const bad = await commands
      .startCommand(context, { id: "a" }, { sessionId: "s", shell: "x" })
      .catch((error: unknown) => error);
    assert.ok(SandportError.hasCode(bad, "INVALID_REQUEST"));
    const typo = await commands
      .startCommand(context, { id: "a" }, { sesionId: "s", argv: ["x"] } as never)
      .catch((error: unknown) => error);
    assert.ok(SandportError.hasCode(typo, "INVALID_REQUEST"));
    assert.equal(context.describes + context.connects, 0);
    const ref = await commands.startCommand(context, { id: "a" }, { sessionId: "s", argv: ["sleep", "1"] });
    assert.deepEqual(ref, { sessionId: "s", commandId: "c1" });
    assert.equal(context.known.isPristine("a"), false);
    assert.deepEqual(await commands.startCommand(context, { id: "a" }, { sessionId: "s", argv: ["other"] }), ref);
    assert.deepEqual(starts, ["a:sleep 1"]);
    assert.deepEqual(await commands.commandStatus(context, { id: "a" }, ref), { state: "running", exitCode: null });
    const running = await commands.commandLogs(context, { id: "a" }, ref);
    assert.deepEqual([running.stdout, running.exitCode, running.durationMs], ["out", null, 5]);
    sessions.set("s", { commandId: "c1", end: { exitCode: 3, durationMs: 9, timedOut: false }, output: "done" });
    assert.deepEqual(await commands.commandStatus(context, { id: "a" }, ref), { state: "exited", exitCode: 3 });
    const ended = await commands.commandLogs(context, { id: "a" }, ref);
    assert.deepEqual([ended.stdout, ended.exitCode, ended.durationMs], ["done", 3, 9]);
  });

  test("a malformed ref is refused before any request; an unknown one is the vendor's NOT_FOUND", async () => {
    const context = new FakeContext();
    context.add("a");
    const { commands } = fakeCommands();
    const malformed = await commands
      .commandStatus(context, { id: "a" }, { sessionId: "..", commandId: "c1" })
      .catch((error: unknown) => error);
    assert.ok(SandportError.hasCode(malformed, "INVALID_REQUEST"));
    assert.equal(context.describes + context.connects, 0);
    const unknown = await commands
      .commandLogs(context, { id: "a" }, { sessionId: "s", commandId: "c9" })
      .catch((error: unknown) => error);
    assert.ok(SandportError.hasCode(unknown, "NOT_FOUND"));
    assert.deepEqual((unknown as SandportError).details, { sessionId: "s", commandId: "c9" });
  });
});
