// startCommand, commandStatus and commandLogs on Daytona sessions through the
// real SDK (newest and oldest) against the Daytona emulator: the session id is
// the idempotency key (lost answers, racing starts), the sandbox's watchdog
// enforces the timeout, and a command a stop ended is NOT_FOUND.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { CommandRef } from "@sandport/core";
import { delay, expectCode, waitFor } from "@sandport/testkit/assertions";
import { type DaytonaEmulator, startDaytonaEmulator } from "@sandport/testkit/emulators/daytona";
import { emulatorOptions, SDKS } from "../test/emulated.js";
import { DaytonaRuntime } from "./daytona-runtime.js";
import type { DaytonaHandle } from "./handle.js";

const CREATE_SESSION = "POST /toolbox/:id/process/session";
const SESSION_EXEC = "POST /toolbox/:id/process/session/:sessionId/exec";

for (const sdk of SDKS) {
  describe(`async commands with ${sdk.label}`, () => {
    let emulator: DaytonaEmulator;
    let runtime: DaytonaRuntime;
    let handle: DaytonaHandle;

    before(async () => {
      emulator = await startDaytonaEmulator();
      runtime = new DaytonaRuntime({ ...emulatorOptions(emulator, sdk), owner: "async-tests" });
      handle = await runtime.launch();
    });

    after(() => emulator.stop());

    const exited = (ref: CommandRef) =>
      waitFor(async () => (await runtime.commandStatus(handle, ref)).state === "exited", {
        what: "the command to exit",
      });
    const runs = async (file: string) =>
      new TextDecoder()
        .decode(await runtime.readFile(handle, file))
        .split("\n")
        .filter(Boolean).length;

    test("a start is three requests (and the home directory, once per sandbox); status and logs follow the command; the session id names it again", async () => {
      emulator.resetRequests();
      const ref = await runtime.startCommand(handle, { sessionId: "cycle", shell: "echo out; echo err >&2; exit 3" });
      assert.deepEqual(
        emulator.requests.map((request) => request.route),
        [CREATE_SESSION, "GET /toolbox/:id/user-home-dir", SESSION_EXEC, "GET /toolbox/:id/process/session/:sessionId"],
      );
      await exited(ref);
      assert.deepEqual(await runtime.commandStatus(handle, ref), { state: "exited", exitCode: 3 });
      const logs = await runtime.commandLogs(handle, ref);
      assert.deepEqual([logs.exitCode, logs.stdout, logs.stderr, logs.timedOut], [3, "out\nerr\n", "", false]);
      assert.deepEqual(await runtime.startCommand(handle, { sessionId: "cycle", argv: ["false"] }), ref);
    });

    test("a start whose answer was lost, at either step, is found again by its session id: one run", async () => {
      for (const route of [CREATE_SESSION, SESSION_EXEC]) {
        const sessionId = `lost-${route === CREATE_SESSION ? "create" : "exec"}`;
        const request = { sessionId, shell: `echo ran >> ${sessionId}.txt` };
        emulator.injectFault({ route, fault: { kind: "lost-response" } });
        await expectCode(runtime.startCommand(handle, request), "PROVIDER_UNAVAILABLE");
        const ref = await runtime.startCommand(handle, request);
        await exited(ref);
        assert.equal(await runs(`${sessionId}.txt`), 1, `${route}: ran once`);
      }
    });

    test("concurrent starts of one session id run it once and all return its command", async () => {
      const request = { sessionId: "racing", shell: "echo ran >> racing.txt; sleep 0.3" };
      const refs = await Promise.all([1, 2, 3, 4].map(() => runtime.startCommand(handle, request)));
      assert.equal(new Set(refs.map((ref) => ref.commandId)).size, 1);
      await exited(refs[0] as CommandRef);
      await delay(500);
      assert.equal(await runs("racing.txt"), 1);
    });

    test("the sandbox's watchdog stops a command at its timeout: exited, exit code null, timedOut", async () => {
      const ref = await runtime.startCommand(handle, {
        sessionId: "slow",
        shell: "(sleep 1; echo late > slow-late.txt) & sleep 30",
        timeoutMs: 400,
      });
      await exited(ref);
      assert.deepEqual(await runtime.commandStatus(handle, ref), { state: "exited", exitCode: null });
      const logs = await runtime.commandLogs(handle, ref);
      assert.equal(logs.timedOut, true);
      assert.ok(logs.durationMs >= 400, `durationMs ${logs.durationMs} covers the 400 ms budget`);
      await delay(1_200);
      await expectCode(runtime.readFile(handle, "slow-late.txt"), "NOT_FOUND", "its child was stopped too");
      const plain = await runtime.startCommand(handle, { sessionId: "exits-124", shell: "exit 124" });
      await exited(plain);
      assert.deepEqual(await runtime.commandStatus(handle, plain), { state: "exited", exitCode: 124 });
    });

    test("logs report how long the command ran, from the run record its script keeps", async () => {
      const ref = await runtime.startCommand(handle, { sessionId: "timed", shell: "sleep 0.3; echo done" });
      await exited(ref);
      const logs = await runtime.commandLogs(handle, ref);
      assert.deepEqual([logs.exitCode, logs.stdout], [0, "done\n"]);
      assert.ok(logs.durationMs >= 300 && logs.durationMs < 10_000, `durationMs ${logs.durationMs}`);
    });

    test("the request's output cap stops a command that passed it and went quiet, with nobody polling", async () => {
      const ref = await runtime.startCommand(handle, {
        sessionId: "capped",
        // Past its cap (both streams, merged), then silent: only the sandbox-side cap stops it before its budget.
        shell: "printf '%010d' 0; printf bbbbbbbbbb >&2; exec sleep 60",
        maxOutputBytes: 15,
        timeoutMs: 60_000,
      });
      // Nothing reads its output until it has ended.
      await exited(ref);
      assert.deepEqual(await runtime.commandStatus(handle, ref), { state: "exited", exitCode: null });
      const logs = await runtime.commandLogs(handle, ref);
      assert.deepEqual(
        [logs.stdout, logs.truncated, logs.exitCode, logs.timedOut],
        [`${"0".repeat(10)}bbbbb`, true, null, false],
      );
    });

    test("a command that exits 141 by itself is not taken for one the cap stopped", async () => {
      const ref = await runtime.startCommand(handle, { sessionId: "exits-141", shell: "echo small; exit 141" });
      await exited(ref);
      assert.deepEqual(await runtime.commandStatus(handle, ref), { state: "exited", exitCode: 141 });
      const logs = await runtime.commandLogs(handle, ref);
      assert.deepEqual([logs.exitCode, logs.truncated, logs.stdout], [141, false, "small\n"]);
    });

    test("unknown commands are NOT_FOUND; a stop ends every session, and a session id used before stays claimed", async () => {
      await expectCode(runtime.commandStatus(handle, { sessionId: "never", commandId: "x" }), "NOT_FOUND");
      const ref = await runtime.startCommand(handle, { sessionId: "across-stop", shell: "echo started; sleep 30" });
      await waitFor(async () => (await runtime.commandLogs(handle, ref)).stdout === "started\n", { what: "it to run" });
      await runtime.stop(handle);
      await runtime.start(handle);
      await expectCode(runtime.commandStatus(handle, ref), "NOT_FOUND");
      const again = await runtime.startCommand(handle, { sessionId: "across-stop", argv: ["true"] });
      await exited(again);
      assert.deepEqual(await runtime.commandStatus(handle, again), { state: "exited", exitCode: 75 });
      assert.match((await runtime.commandLogs(handle, again)).stdout, /started before/);
    });
  });
}
