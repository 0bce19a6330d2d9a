// Wire tests of the toolbox PTY sessions with the real Daytona SDKs 0.218 (create-connect over one
// WebSocket) and 0.180 (create over HTTP, then connect).

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { waitFor } from "../../assertions/index.js";
import { deleteAll, openClient } from "./client.fixture.js";
import { type DaytonaEmulator, startDaytonaEmulator } from "./emulator.js";
import { DAYTONA_SDKS, type DaytonaClient, type DaytonaSandbox } from "./sdk.fixture.js";

/** A terminal's output as text, and a wait for a pattern in it (each chunk wakes the wait). */
class Screen {
  text = "";
  #changed: () => void = () => {};
  readonly #decoder = new TextDecoder();

  readonly onData = (bytes: Uint8Array) => {
    this.text += this.#decoder.decode(bytes, { stream: true });
    this.#changed();
  };

  async shown(pattern: RegExp, from = 0): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const tooLate = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no ${pattern} on the terminal: ${JSON.stringify(this.text)}`)),
        15_000,
      );
    });
    try {
      while (!pattern.test(this.text.slice(from))) {
        await Promise.race([new Promise<void>((resolve) => (this.#changed = resolve)), tooLate]);
      }
    } finally {
      clearTimeout(timer);
    }
  }
}

for (const sdk of DAYTONA_SDKS) {
  describe(`Daytona PTY sessions with ${sdk.label}`, () => {
    let emulator: DaytonaEmulator;
    let daytona: DaytonaClient;
    let sandbox: DaytonaSandbox;

    before(async () => {
      emulator = await startDaytonaEmulator();
      daytona = openClient(sdk, emulator);
      sandbox = await daytona.create({ envVars: { FROM_CREATE: "yes" } });
    });

    after(async () => {
      await deleteAll(emulator);
      await daytona[Symbol.asyncDispose]();
      await emulator.stop();
    });

    it("createPty runs a login shell on a real terminal: input, resize seen by stty, Ctrl-C, exit code", async () => {
      const screen = new Screen();
      const pty = await sandbox.process.createPty({
        id: "one",
        cols: 80,
        rows: 24,
        envs: { GREETING: "hello" },
        onData: screen.onData,
      });
      await pty.sendInput("stty size; echo $TERM $GREETING $FROM_CREATE; test -t 0 && printf 'tt%s\\n' y\n");
      await screen.shown(/24 80\r\nxterm-256color hello yes\r\ntty\r\n/);
      const info = await sandbox.process.getPtySessionInfo("one");
      assert.deepEqual([info.id, info.active, info.cols, info.rows], ["one", true, 80, 24]);

      let mark = screen.text.length;
      const resized = await pty.resize(100, 30);
      assert.deepEqual([resized.cols, resized.rows], [100, 30]);
      await pty.sendInput("stty size\n");
      await screen.shown(/30 100\r\n/, mark);

      await pty.sendInput("sh -c 'printf \"rea%s\\n\" dy; exec sleep 30'\n");
      await screen.shown(/ready/);
      mark = screen.text.length;
      await pty.sendInput(new Uint8Array([3]));
      await pty.sendInput("echo status=$?\n");
      await screen.shown(/status=130/, mark);

      await pty.sendInput("exit 3\n");
      const result = await pty.wait();
      assert.equal(result.exitCode, 3);
      await assert.rejects(sandbox.process.getPtySessionInfo("one"), "an ended session is forgotten");
    });

    it("killPtySession kills the shell and what it started: exit 137 (SIGKILL); resizing it then fails", async () => {
      const screen = new Screen();
      const pty = await sandbox.process.createPty({ id: "two", onData: screen.onData });
      await pty.sendInput("sleep 300 & echo started=$!\n");
      await screen.shown(/started=\d+/);
      const sleeper = /started=(\d+)/.exec(screen.text)?.[1];
      await pty.kill();
      const result = await pty.wait();
      assert.equal(result.exitCode, 137);
      assert.equal(result.error, "SIGKILL");
      assert.deepEqual(await sandbox.process.listPtySessions(), []);
      await assert.rejects(sandbox.process.resizePtySession("two", 90, 20));
      // On an unisolated backend the job (its own process group) is swept by its marker just after the exit is
      // reported; under bubblewrap it dies with the PID namespace at once. Either way it must go.
      await waitFor(
        async () => {
          const alive = await sandbox.process.executeCommand(
            `kill -0 ${sleeper} 2>/dev/null && echo alive || echo gone`,
          );
          return alive.result.trim() === "gone";
        },
        { what: "the shell's background job to die with it" },
      );
    });

    it("a shell ended by a signal reports exit code -1, as Go's ExitCode() does", async () => {
      const pty = await sandbox.process.createPty({ id: "signalled", onData: () => {} });
      // The shell replaces itself with one that kills itself: the session's process dies of SIGTERM.
      await pty.sendInput("exec sh -c 'kill -TERM $$'\n");
      const result = await pty.wait();
      assert.equal(result.exitCode, -1);
    });

    it("refuses a duplicate id, and cols or rows from 1000 on", async () => {
      const pty = await sandbox.process.createPty({ id: "three", onData: () => {} });
      await assert.rejects(sandbox.process.createPty({ id: "three", onData: () => {} }));
      await assert.rejects(sandbox.process.createPty({ id: "four", cols: 1000, onData: () => {} }));
      await assert.rejects(pty.resize(80, 1000));
      await pty.kill();
      await pty.wait();
    });
  });
}
