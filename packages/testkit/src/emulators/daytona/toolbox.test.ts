// Wire tests of the toolbox (process, sessions, files) with the real Daytona SDKs 0.218 and 0.180.

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
  const { DaytonaConflictError, DaytonaError, DaytonaNotFoundError, DaytonaTimeoutError, DaytonaValidationError } =
    sdk.sdk;

  describe(`Daytona toolbox with ${sdk.label}`, () => {
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

    it("executeCommand: cwd (outside home too), env, exit codes, timeouts, a missing cwd, bad env names", async () => {
      await sandbox.fs.createFolder("work", "755");
      const here = await sandbox.process.executeCommand('pwd | xargs basename; echo "$FROM_CREATE $ONE"', "work", {
        ONE: "1",
      });
      assert.deepEqual([here.exitCode, here.result], [0, "work\nyes 1\n"]);
      assert.equal((await sandbox.process.executeCommand("exit 42")).exitCode, 42);
      assert.equal((await sandbox.process.executeCommand("[[ 1 == 1 ]] && echo bash")).result, "bash\n");

      const started = Date.now();
      const timedOut = await sandbox.process.executeCommand("sleep 20; echo never", undefined, undefined, 1).then(
        () => assert.fail("a command past its timeout must fail"),
        (error: unknown) => error,
      );
      assert.ok(timedOut instanceof DaytonaError);
      assert.equal(statusOf(timedOut), 408);
      if (sdk.eventStream) assert.ok(timedOut instanceof DaytonaTimeoutError, "0.218 maps 408 to its timeout error");
      assert.ok(Date.now() - started < 5_000);

      assert.deepEqual(await sandbox.process.executeCommand("pwd", "/home/daytona/missing"), {
        exitCode: -1,
        result: "",
        artifacts: { stdout: "" },
      });
      await assert.rejects(sandbox.process.executeCommand("true", undefined, { "A-B": "1" }), DaytonaValidationError);
      // A command runs anywhere in the machine: a cwd outside /home/daytona is a directory like any other.
      assert.deepEqual(await sandbox.process.executeCommand("pwd", "/tmp"), {
        exitCode: 0,
        result: "/tmp\n",
        artifacts: { stdout: "/tmp\n" },
      });
      assert.deepEqual(await sandbox.process.executeCommand("pwd", "/tmp/missing-here"), {
        exitCode: -1,
        result: "",
        artifacts: { stdout: "" },
      });
      const traversal = await sandbox.process.executeCommand("true", "/tmp/../etc").then(
        () => assert.fail("a cwd with '..' is refused"),
        (error: unknown) => error,
      );
      assert.equal(statusOf(traversal), 400);
    });

    it("sessions: sync and async commands, exit codes, separate streams, order, follow over WebSocket", async () => {
      await sandbox.process.createSession("main");
      await assert.rejects(sandbox.process.createSession("main"), DaytonaConflictError);
      const sync = await sandbox.process.executeSessionCommand("main", {
        command: "echo out; echo err >&2; echo $FROM_CREATE; exit 3",
      });
      assert.equal(sync.exitCode, 3);
      assert.equal(sync.stdout, "out\nyes\n");
      assert.equal(sync.stderr, "err\n");
      // Two pipes, so the order across streams is the scheduler's, as with the daemon's two labelers.
      assert.deepEqual(sync.output?.split("\n").sort(), ["", "err", "out", "yes"]);

      const slow = await sandbox.process.executeSessionCommand("main", {
        command: "for i in 1 2 3; do echo $i; sleep 0.1; done; echo done >&2; echo first > order.txt",
        runAsync: true,
      });
      const next = await sandbox.process.executeSessionCommand("main", {
        command: "echo second >> order.txt",
        runAsync: true,
      });
      assert.ok(slow.cmdId && next.cmdId);
      assert.equal((await sandbox.process.getSessionCommand("main", slow.cmdId)).exitCode, undefined);
      const streamed = { stdout: "", stderr: "", firstAt: 0 };
      await sandbox.process.getSessionCommandLogs(
        "main",
        slow.cmdId,
        (chunk) => {
          streamed.firstAt ||= Date.now();
          streamed.stdout += chunk;
        },
        (chunk) => {
          streamed.stderr += chunk;
        },
      );
      assert.deepEqual([streamed.stdout, streamed.stderr], ["1\n2\n3\n", "done\n"]);
      const upgrade = emulator.requests.find((request) => request.status === 101);
      assert.equal(
        upgrade?.headers.authorization,
        `Bearer ${emulator.apiKey}`,
        "the log WebSocket is authenticated too",
      );
      assert.equal(upgrade?.headers.upgrade, "websocket");
      assert.ok(Date.now() - streamed.firstAt >= 150, "output arrives while the command still runs");
      assert.equal((await sandbox.process.getSessionCommand("main", slow.cmdId)).exitCode, 0);
      const afterwards: string[] = [];
      await sandbox.process.getSessionCommandLogs(
        "main",
        next.cmdId,
        (chunk) => afterwards.push(chunk),
        (chunk) => afterwards.push(chunk),
      );
      assert.deepEqual(afterwards, [], "a command that printed nothing closes its followed log at once");
      assert.equal(
        (await sandbox.fs.downloadFile("order.txt")).toString(),
        "first\nsecond\n",
        "one at a time, in order",
      );
      assert.deepEqual(await sandbox.process.getSessionCommandLogs("main", slow.cmdId), {
        output: "1\n2\n3\ndone\n",
        stdout: "1\n2\n3\n",
        stderr: "done\n",
      });

      const session = await sandbox.process.getSession("main");
      assert.deepEqual(
        session.commands.map((command) => [command.command.slice(0, 9), command.exitCode]),
        [
          ["echo out;", 3],
          ["for i in ", 0],
          ["echo seco", 0],
        ],
      );
      assert.deepEqual(
        (await sandbox.process.listSessions()).map((entry) => entry.sessionId),
        ["main"],
      );
      await assert.rejects(sandbox.process.getSessionCommand("main", "no-such-command"), DaytonaNotFoundError);
      await assert.rejects(sandbox.process.executeSessionCommand("none", { command: "true" }), DaytonaNotFoundError);
      // A refused log WebSocket rejects with the ws library's ErrorEvent, not one of the SDK's errors.
      const refusedFollow = await sandbox.process
        .getSessionCommandLogs(
          "main",
          "no-such-command",
          () => {},
          () => {},
        )
        .then(
          () => assert.fail("following an unknown command must fail"),
          (error: unknown) => error,
        );
      assert.ok(!(refusedFollow instanceof DaytonaError));
      assert.match(String((refusedFollow as { message?: string }).message), /Unexpected server response: 404/);

      const sleeper = await sandbox.process.executeSessionCommand("main", { command: "sleep 30", runAsync: true });
      const followed = sandbox.process.getSessionCommandLogs(
        "main",
        sleeper.cmdId ?? "",
        () => {},
        () => {},
      );
      await waitFor(
        () =>
          emulator.requests.some((request) => request.status === 101 && request.path.includes(sleeper.cmdId ?? "?")),
        { timeoutMs: 10_000, what: "the log WebSocket to open" },
      );
      await sandbox.process.deleteSession("main");
      await followed;
      await assert.rejects(sandbox.process.getSession("main"), DaytonaNotFoundError);
    });

    it("files: folders with modes, details, listings, moves, deletes, missing files and escapes", async () => {
      await sandbox.fs.createFolder("/home/daytona/tree/inner", "700");
      const folder = await sandbox.fs.getFileDetails("tree/inner");
      assert.deepEqual([folder.isDir, folder.permissions, folder.mode], [true, "0700", "drwx------"]);
      await sandbox.fs.uploadFiles([
        { source: Buffer.from("12345"), destination: "tree/inner/five.txt" },
        { source: Buffer.from("x"), destination: "tree/one.txt" },
      ]);
      const details = await sandbox.fs.getFileDetails("/home/daytona/tree/inner/five.txt");
      assert.deepEqual(
        [details.name, details.size, details.isDir, details.permissions],
        ["five.txt", 5, false, "0644"],
      );
      assert.match(details.modTime, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)? \+0000 UTC$/);
      assert.deepEqual(
        (await sandbox.fs.listFiles("tree")).map((entry) => `${entry.isDir ? "d" : "f"} ${entry.name}`),
        ["d inner", "f one.txt"],
      );
      await sandbox.fs.moveFiles("tree/one.txt", "/home/daytona/tree/inner/moved.txt");
      assert.deepEqual(
        (await sandbox.fs.listFiles("tree/inner")).map((entry) => entry.name),
        ["five.txt", "moved.txt"],
      );
      assert.equal(await sandbox.getUserHomeDir(), "/home/daytona");
      assert.equal(await sandbox.getWorkDir(), "/home/daytona");

      await assert.rejects(sandbox.fs.deleteFile("tree"), DaytonaValidationError, "a directory needs recursive");
      await sandbox.fs.deleteFile("tree/inner/moved.txt");
      await sandbox.fs.deleteFile("tree", true);
      await assert.rejects(sandbox.fs.getFileDetails("tree"), DaytonaNotFoundError);
      await assert.rejects(sandbox.fs.downloadFile("tree/inner/five.txt"), DaytonaNotFoundError);
      await assert.rejects(sandbox.fs.deleteFile("tree/none"), DaytonaNotFoundError);
      const escaped = await sandbox.fs.uploadFile(Buffer.from("x"), "../escape.txt").then(
        () => assert.fail("a path out of /home/daytona is refused"),
        (error: unknown) => error,
      );
      assert.equal(statusOf(escaped), 400);
      await assert.rejects(sandbox.fs.listFiles("/etc"), (error: unknown) => statusOf(error) === 400);
    });
  });
}
