// Wire tests of session input with the real Daytona SDKs (0.218 and 0.180):
// sendSessionCommandInput reaches an async command's stdin, as on the daemon.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { waitFor } from "../../assertions/index.js";
import { deleteAll, openClient } from "./client.fixture.js";
import { type DaytonaEmulator, startDaytonaEmulator } from "./emulator.js";
import { DAYTONA_SDKS, type DaytonaClient, type DaytonaSandbox } from "./sdk.fixture.js";

/** The HTTP status an SDK error carries. */
function statusOf(error: unknown): number | undefined {
  return (error as { statusCode?: number }).statusCode;
}

for (const sdk of DAYTONA_SDKS) {
  describe(`Daytona session input with ${sdk.label}`, () => {
    let emulator: DaytonaEmulator;
    let daytona: DaytonaClient;
    let sandbox: DaytonaSandbox;

    before(async () => {
      emulator = await startDaytonaEmulator();
      daytona = openClient(sdk, emulator);
      sandbox = await daytona.create();
      await sandbox.process.createSession("input");
    });

    after(async () => {
      await deleteAll(emulator);
      await daytona[Symbol.asyncDispose]();
      await emulator.stop();
    });

    const logsOf = async (commandId: string) =>
      (await sandbox.process.getSessionCommandLogs("input", commandId)).stdout ?? "";
    const exitOf = async (commandId: string) => (await sandbox.process.getSessionCommand("input", commandId)).exitCode;

    it("input reaches an async command's stdin, a newline added, and is echoed into its output", async () => {
      const { cmdId } = await sandbox.process.executeSessionCommand("input", {
        command: 'read -r first; echo "got:$first"; read -r second; echo "got:$second"',
        runAsync: true,
      });
      assert.ok(cmdId);
      await sandbox.process.sendSessionCommandInput("input", cmdId, "one");
      await waitFor(async () => (await logsOf(cmdId)).includes("got:one\n"), { what: "the first answer" });
      assert.equal(await exitOf(cmdId), undefined, "the command still waits for its second line");
      await sandbox.process.sendSessionCommandInput("input", cmdId, "two é 🚀\n");
      await waitFor(async () => (await exitOf(cmdId)) === 0, { what: "the command to exit" });
      assert.equal(await logsOf(cmdId), "one\ngot:one\ntwo é 🚀\ngot:two é 🚀\n", "the input is echoed as stdout");
    });

    it("suppressInputEcho keeps the input out of the output", async () => {
      const { cmdId } = await sandbox.process.executeSessionCommand("input", {
        command: 'read -r line; echo "got:$line"',
        runAsync: true,
        suppressInputEcho: true,
      });
      assert.ok(cmdId);
      await sandbox.process.sendSessionCommandInput("input", cmdId, "quiet\n");
      await waitFor(async () => (await exitOf(cmdId)) === 0, { what: "the command to exit" });
      assert.equal(await logsOf(cmdId), "got:quiet\n");
    });

    it("input to a command that ended is 410, to one not yet running 409, to an unknown one 404", async () => {
      const { cmdId: blocker } = await sandbox.process.executeSessionCommand("input", {
        command: "read -r line",
        runAsync: true,
      });
      const { cmdId: queued } = await sandbox.process.executeSessionCommand("input", {
        command: "echo queued",
        runAsync: true,
      });
      assert.ok(blocker && queued);
      const early = await sandbox.process.sendSessionCommandInput("input", queued, "x").then(
        () => assert.fail("a queued command reads no input yet"),
        (error: unknown) => error,
      );
      assert.equal(statusOf(early), 409);
      await sandbox.process.sendSessionCommandInput("input", blocker, "go");
      await waitFor(async () => (await exitOf(queued)) === 0, { what: "both commands to end" });
      const late = await sandbox.process.sendSessionCommandInput("input", blocker, "late").then(
        () => assert.fail("an ended command takes no input"),
        (error: unknown) => error,
      );
      assert.equal(statusOf(late), 410);
      if (sdk.eventStream) assert.ok(late instanceof sdk.sdk.DaytonaCommandAlreadyCompletedError);
      await assert.rejects(
        sandbox.process.sendSessionCommandInput("input", "no-such-command", "x"),
        sdk.sdk.DaytonaNotFoundError,
      );
      assert.deepEqual(emulator.unknownRoutes, []);
    });

    it("deleting the session kills a command that waits for input", async () => {
      await sandbox.process.createSession("doomed");
      const { cmdId } = await sandbox.process.executeSessionCommand("doomed", { command: "cat", runAsync: true });
      assert.ok(cmdId);
      await sandbox.process.sendSessionCommandInput("doomed", cmdId, "echoed by cat");
      const answered = "echoed by cat\n".repeat(2);
      await waitFor(async () => (await sandbox.process.getSessionCommandLogs("doomed", cmdId)).stdout === answered, {
        what: "cat to answer (after the echo of its input)",
      });
      await sandbox.process.deleteSession("doomed");
      await assert.rejects(sandbox.process.getSession("doomed"), sdk.sdk.DaytonaNotFoundError);
    });
  });
}
