import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import type { CommandRef, CommandStatus, SandboxHandle, SandboxRuntime, StartCommandRequest } from "@sandport/core";
import { assertNoHostMarker, expectCode, pollUntil, readText, withHostEnvMarker } from "./assertions.js";
import { type CheckGroup, LAUNCH_ENV_NAME, LAUNCH_ENV_VALUE } from "./suite.js";
import { invalidExecCases } from "./validation.js";

/** A shell loop that waits (at most 20 s) until `file` exists; lets a check hold a command in `running`. */
function waitFor(file: string): string {
  return `i=0; while [ ! -e ${file} ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done`;
}

/**
 * Registers the async exec checks (`startCommand` / `commandStatus` /
 * `commandLogs`): the full cycle, idempotent session ids, reattach, timeout,
 * env isolation, refused requests and unknown commands.
 */
export function declareAsyncChecks<H extends SandboxHandle>(group: CheckGroup<H>): void {
  const { runtime, suite } = group;
  const { pollIntervalMs, commandTimeoutMs, promptMs, testMs } = suite.timeouts;
  const start = (handle: H, request: StartCommandRequest, on: SandboxRuntime<H> = runtime) =>
    on.startCommand!(handle, request);
  const untilExited = (handle: H, ref: CommandRef, budgetMs = testMs / 2, on: SandboxRuntime<H> = runtime) =>
    pollUntil<CommandStatus>(
      () => on.commandStatus!(handle, ref),
      (status) => status.state === "exited",
      { timeoutMs: budgetMs, intervalMs: pollIntervalMs, what: `command ${ref.commandId}` },
    );
  const session = (name: string) => `conformance-${name}-${randomUUID()}`;

  group.check("async.start-status-logs", async () => {
    const handle = group.sandbox();
    const sessionId = session("cycle");
    const ref = await start(handle, {
      sessionId,
      shell: `echo early; ${waitFor("async-cycle/go")}; echo out-line; echo err-line >&2; exit 3`,
    });
    assert.equal(ref.sessionId, sessionId, "the ref carries the session id");
    assert.ok(typeof ref.commandId === "string" && ref.commandId.length > 0, "the ref has a command id");
    const running = await runtime.commandStatus!(handle, ref);
    assert.deepEqual({ ...running }, { state: "running", exitCode: null }, "status while waiting");
    const partial = await pollUntil(
      () => runtime.commandLogs!(handle, ref),
      (logs) => logs.stdout !== "",
      { timeoutMs: promptMs, intervalMs: pollIntervalMs, what: "logs of a running command" },
    );
    assert.equal(partial.stdout, "early\n", "commandLogs while running returns the output so far");
    assert.equal((await runtime.commandStatus!(handle, ref)).state, "running", "still running");
    await runtime.writeFiles(handle, [{ path: "async-cycle/go", content: "" }]);
    const copy = JSON.parse(JSON.stringify(ref)) as CommandRef;
    const exited = await untilExited(handle, copy);
    assert.equal(exited.exitCode, 3, "exit code in the status");
    const logs = await runtime.commandLogs!(handle, copy);
    assert.equal(logs.exitCode, 3, "exit code in the logs");
    assert.equal(logs.timedOut, false);
    assert.equal(logs.truncated, false);
    if (suite.capabilities.outputStreams === "combined") {
      assert.equal(logs.stdout, "early\nout-line\nerr-line\n");
      assert.equal(logs.stderr, "");
    } else {
      assert.equal(logs.stdout, "early\nout-line\n");
      assert.equal(logs.stderr, "err-line\n");
    }
  });

  group.check("async.idempotent-session", async () => {
    const handle = group.sandbox();
    await runtime.writeFiles(handle, [{ path: "async-idem/.keep", content: "" }]);
    const request = (sessionId: string, name: string): StartCommandRequest => ({
      sessionId,
      shell: `echo run >> async-idem/${name}.txt; ${waitFor(`async-idem/${name}.go`)}`,
    });
    const sequential = session("sequential");
    const first = await start(handle, request(sequential, "sequential"));
    const again = await start(handle, request(sequential, "sequential"));
    assert.equal(again.commandId, first.commandId, "a repeated sessionId while running returns the same command");
    await runtime.writeFiles(handle, [{ path: "async-idem/sequential.go", content: "" }]);
    await untilExited(handle, first);
    const late = await start(handle, request(sequential, "sequential"));
    assert.equal(late.commandId, first.commandId, "a repeated sessionId after exit returns the same command");
    assert.equal((await runtime.commandStatus!(handle, late)).state, "exited", "and it is not started again");

    const concurrent = session("concurrent");
    const refs = await Promise.all([1, 2, 3].map(() => start(handle, request(concurrent, "concurrent"))));
    assert.equal(new Set(refs.map((ref) => ref.commandId)).size, 1, "concurrent starts return one command");
    await runtime.writeFiles(handle, [{ path: "async-idem/concurrent.go", content: "" }]);
    await untilExited(handle, refs[0]!);
    assert.equal(await readText(runtime, handle, "async-idem/sequential.txt"), "run\n", "sequential starts ran once");
    assert.equal(await readText(runtime, handle, "async-idem/concurrent.txt"), "run\n", "concurrent starts ran once");
  });

  group.check("async.reattach", async () => {
    const handle = group.sandbox();
    const sessionId = session("reattach");
    const request: StartCommandRequest = { sessionId, shell: `${waitFor("async-reattach/go")}; echo reattached` };
    const ref = await start(handle, request);
    const found = await runtime.getById!(handle.id);
    assert.ok(found !== undefined, "getById");
    assert.equal((await runtime.commandStatus!(found, ref)).state, "running", "status through a reattached handle");
    let reader: [SandboxRuntime<H>, H] = [runtime, found];
    if (suite.reopen) {
      const other = await suite.reopen();
      const foundByOther = await other.getById!(handle.id);
      assert.ok(foundByOther !== undefined, "getById from a new instance");
      assert.equal((await other.commandStatus!(foundByOther, ref)).state, "running", "status from a new instance");
      const again = await start(foundByOther, request, other);
      assert.equal(again.commandId, ref.commandId, "the sessionId is idempotent across instances");
      reader = [other, foundByOther];
    }
    await runtime.writeFiles(handle, [{ path: "async-reattach/go", content: "" }]);
    const [on, readerHandle] = reader;
    const exited = await untilExited(readerHandle, ref, testMs / 2, on);
    assert.equal(exited.exitCode, 0);
    assert.equal((await on.commandLogs!(readerHandle, ref)).stdout, "reattached\n", "logs through reattach");
  });

  group.check("async.timeout", async () => {
    const handle = group.sandbox();
    const ref = await start(handle, { sessionId: session("timeout"), shell: "sleep 30", timeoutMs: commandTimeoutMs });
    const status = await untilExited(handle, ref, commandTimeoutMs + promptMs);
    assert.equal(status.exitCode, null, "a killed command has no exit code");
    const logs = await runtime.commandLogs!(handle, ref);
    assert.equal(logs.timedOut, true, "logs say timedOut");
    assert.equal(logs.exitCode, null, "logs have no exit code");
  });

  group.check("async.env-isolation", async () => {
    const handle = group.sandbox();
    await withHostEnvMarker(async (value) => {
      const ref = await start(handle, { sessionId: session("env"), argv: ["env"], env: { ASYNC_VAR: "async-value" } });
      await untilExited(handle, ref);
      const { stdout } = await runtime.commandLogs!(handle, ref);
      assert.match(stdout, /^ASYNC_VAR=async-value$/m, "the request env");
      assert.ok(stdout.includes(`${LAUNCH_ENV_NAME}=${LAUNCH_ENV_VALUE}`), "the launch env");
      assertNoHostMarker(stdout, value, "env of an async command");
    });
  });

  group.check("async.invalid-requests", async () => {
    const handle = group.sandbox();
    const probe = "async-invalid-ran.txt";
    for (const { what, request, op, code } of invalidExecCases(probe)) {
      const withSession = { ...request, sessionId: session("invalid") } as StartCommandRequest;
      await expectCode(() => runtime.startCommand!(handle, withSession, op), code, `startCommand with ${what}`);
    }
    const control = await start(handle, { sessionId: session("control"), shell: `echo ran >> ${probe}` });
    await untilExited(handle, control);
    assert.equal(await readText(runtime, handle, probe), "ran\n", "only the well-formed control ran");
  });

  group.check("async.unknown-command", async () => {
    const handle = group.sandbox();
    const ref: CommandRef = { sessionId: "sandport-conformance-unknown", commandId: "sandport-conformance-unknown" };
    await expectCode(() => runtime.commandStatus!(handle, ref), ["NOT_FOUND", "INVALID_REQUEST"], "commandStatus");
    await expectCode(() => runtime.commandLogs!(handle, ref), ["NOT_FOUND", "INVALID_REQUEST"], "commandLogs");
  });
}
