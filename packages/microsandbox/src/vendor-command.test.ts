// How microsandbox's vendor command reads the SDK's exec stream, for what the emulator cannot
// express: a stream that ends without the command's exit (neither an error nor an `exited`
// event), which must never read as a complete result. The fake is the SDK's exec handle only.
import assert from "node:assert/strict";
import { test } from "node:test";
import { SandportError } from "@sandport/core";
import { runCommandToEnd } from "@sandport/core/adapter";
import type { MsbExecEvent, MsbExecHandle, MsbSandbox } from "./internal/sdk-types.js";
import { type CommandPlan, microsandboxCommand, runOptions } from "./vendor-command.js";

const plan: CommandPlan = {
  cmd: "/bin/sh",
  args: ["-c", "true"],
  cwd: "/workspace",
  env: {},
  marker: "m-1",
  timeoutMs: 60_000,
  maxOutputBytes: 1024,
  stdin: undefined,
};

/** A sandbox whose first command yields `events` and then ends; later commands (the kill's sweep) end at once. */
function sandboxYielding(events: readonly (MsbExecEvent | undefined)[]): MsbSandbox & { commands: string[] } {
  const commands: string[] = [];
  const handle = (yielded: readonly (MsbExecEvent | undefined)[]): MsbExecHandle => ({
    takeStdin: async () => ({ write: async () => {}, close: async () => {} }),
    kill: async () => {},
    async *[Symbol.asyncIterator]() {
      for (const event of yielded) yield event as MsbExecEvent;
    },
  });
  return {
    name: "sandport-test",
    commands,
    execStreamWith: async (cmd) => {
      commands.push(cmd);
      return handle(commands.length === 1 ? events : []);
    },
    fs: () => assert.fail("no file calls"),
    stop: async () => {},
  };
}

const run = (events: readonly (MsbExecEvent | undefined)[]) =>
  runCommandToEnd(
    microsandboxCommand("sandport-test", sandboxYielding(events), plan, false),
    runOptions(plan, new AbortController().signal),
  );

test("output bytes are kept exactly and the exit code is the agent's", async () => {
  const result = await run([
    { kind: "started", pid: 7 },
    { kind: "stdout", data: new Uint8Array([0x68, 0x69, 0xff]) },
    { kind: "exited", code: 3 },
  ]);
  assert.deepEqual([result.stdout, result.exitCode, result.timedOut], ["hi\ufffd", 3, false]);
});

test("a stream that ends without the exit is lost output (outcome unknown), never a result", async () => {
  const sandbox = sandboxYielding([
    { kind: "started", pid: 7 },
    { kind: "stdout", data: new Uint8Array([0x61]) },
  ]);
  const error = await runCommandToEnd(
    microsandboxCommand("sandport-test", sandbox, plan, false),
    runOptions(plan, new AbortController().signal),
  ).catch((caught: unknown) => caught);
  assert.ok(SandportError.hasCode(error, "PROVIDER_UNAVAILABLE"), String(error));
  assert.equal(error.details.outcomeUnknown, true);
  assert.deepEqual(sandbox.commands, ["/bin/sh", "/bin/sh"], "the command was stopped: its sweep ran");
});

test("agentd's core.exec.failed (an undefined first event) is NOT_FOUND naming the program and directory", async () => {
  const error = await run([undefined]).catch((caught: unknown) => caught);
  assert.ok(SandportError.hasCode(error, "NOT_FOUND"), String(error));
  assert.match(error.message, /could not start "\/bin\/sh" in \/workspace/);
});
