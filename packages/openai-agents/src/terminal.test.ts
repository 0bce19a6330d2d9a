// `tty: true` commands run on a terminal (the runtime's openTerminal), and write_stdin types into it:
// Ctrl-C reaches the foreground job as a signal instead of killing the command.
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { SandboxUnsupportedFeatureError } from "@openai/agents-core/sandbox";
import { localTestRuntime, withoutMethods } from "@sandport/testkit/fakes";
import { SandportSandboxClient, type SandportSandboxSession } from "./index.js";

const local = await localTestRuntime("openai-terminal");
after(() => local.cleanup());

async function session(runtime = local.runtime): Promise<SandportSandboxSession> {
  const created = await new SandportSandboxClient({ runtime }).create();
  await created.start();
  return created;
}

describe("tty commands", () => {
  test("a tty command sees a terminal on stdin and stdout; one without tty does not", async () => {
    const sandbox = await session();
    try {
      const script = "test -t 0 && test -t 1 && echo on-a-terminal || echo on-pipes";
      const onTerminal = await sandbox.exec({ cmd: script, tty: true, yieldTimeMs: 30_000 });
      assert.equal(onTerminal.exitCode, 0);
      assert.match(onTerminal.output, /on-a-terminal\r\n/);
      assert.match((await sandbox.exec({ cmd: script, yieldTimeMs: 30_000 })).output, /on-pipes/);
    } finally {
      await sandbox.delete();
    }
  });

  test("write_stdin's Ctrl-C interrupts the foreground job of a tty command, which exits 130", async () => {
    const sandbox = await session();
    try {
      const first = await sandbox.exec({ cmd: "printf 'rea%s\\n' dy; exec sleep 30", tty: true, yieldTimeMs: 100 });
      const sessionId = first.sessionId as number;
      assert.equal(typeof sessionId, "number", "sleep outlives the yield");
      // The job is on the terminal once it printed `ready`: poll with empty writes until then.
      let seen = first.output;
      while (!seen.includes("ready")) seen += await sandbox.writeStdin({ sessionId, yieldTimeMs: 100 });
      const reply = await sandbox.writeStdin({ sessionId, chars: "\u0003", yieldTimeMs: 30_000 });
      assert.match(reply, /Process exited with code 130/);
    } finally {
      await sandbox.delete();
    }
  });

  test("without openTerminal, tty is refused with the framework's error before anything starts", async () => {
    const runtime = withoutMethods(local.runtime, ["openTerminal"]);
    const sandbox = await session(runtime);
    try {
      await assert.rejects(sandbox.exec({ cmd: "top", tty: true }), (error: unknown) => {
        assert.ok(error instanceof SandboxUnsupportedFeatureError);
        assert.match(error.message, /no openTerminal/);
        return true;
      });
    } finally {
      await sandbox.delete();
    }
  });
});
