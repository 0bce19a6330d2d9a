// Calls asked for 0-11 ms before destroy, under every isolation this machine runs: destroy either stops a
// command or it never starts (no process of it outlives destroy), and a call that loses the race is NOT_FOUND,
// never UNEXPECTED. The offsets are the race's variable, not a wait: each round lets the call get a different
// distance into its work (its record, its plan, its spawn, its files) before destroy overtakes it.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { after, describe, test } from "node:test";
import { setTimeout as later } from "node:timers/promises";
import { SandportError } from "@sandport/core";
import { LocalRuntime } from "../index.js";
import {
  bwrapSkipReason,
  killProcessesWithArgument,
  processesWithArgument,
  temporaryDirectory,
  uniqueSleep,
} from "../runtime.fixture.js";

const isolations = (await bwrapSkipReason()) === undefined ? (["namespaces", "none"] as const) : (["none"] as const);
const root = temporaryDirectory("destroy-race-timed");
after(() => root.remove());
const ROUNDS = 24;

/** The call's value, or "not found" when it rejected NOT_FOUND; any other rejection fails the test. */
async function settle<T>(call: Promise<T>, round: number): Promise<T | "not found"> {
  try {
    return await call;
  } catch (error) {
    assert.ok(SandportError.hasCode(error, "NOT_FOUND"), `round ${round}: expected NOT_FOUND, got ${String(error)}`);
    return "not found";
  }
}

/** Round `round`'s head start for the call: 0-11 ms, the first rounds none at all. */
function headStart(round: number): Promise<unknown> {
  return round < 2 ? Promise.resolve() : later(round % 12);
}

for (const isolation of isolations) {
  describe(`${isolation}: calls racing destroy by 0-11 ms`, () => {
    const runtime = new LocalRuntime({ root: root.path, isolation, killGraceMs: 50 });

    test("exec: never outlives destroy; settles with a result or NOT_FOUND", async () => {
      const sleeps: string[] = [];
      try {
        for (let round = 0; round < ROUNDS; round++) {
          const sleep = uniqueSleep();
          sleeps.push(sleep);
          const handle = await runtime.launch();
          // Under none, every other round runs in a host directory: a start that slipped past destroy would not
          // even need the workspace that destroy removes.
          const cwd = isolation === "none" && round % 2 === 1 ? { cwd: tmpdir() } : {};
          const exec = settle(runtime.exec(handle, { argv: ["sleep", sleep], ...cwd }), round);
          await headStart(round);
          await runtime.destroy(handle);
          assert.deepEqual(processesWithArgument(sleep), [], `round ${round}: the command outlived destroy`);
          const outcome = await exec;
          if (outcome !== "not found") assert.equal(outcome.exitCode, null, `round ${round}: it was killed`);
          assert.equal(existsSync(handle.workspaceDirectory), false, `round ${round}: the workspace is gone`);
        }
      } finally {
        for (const sleep of sleeps) killProcessesWithArgument(sleep);
      }
    });

    test("spawn: never outlives destroy; starts (then is killed) or is NOT_FOUND", async () => {
      const sleeps: string[] = [];
      try {
        for (let round = 0; round < ROUNDS; round++) {
          const sleep = uniqueSleep();
          sleeps.push(sleep);
          const handle = await runtime.launch();
          const spawned = settle(runtime.spawn(handle, { argv: ["sleep", sleep] }), round);
          await headStart(round);
          await runtime.destroy(handle);
          assert.deepEqual(processesWithArgument(sleep), [], `round ${round}: the command outlived destroy`);
          const process = await spawned;
          if (process !== "not found") {
            const ended = await process.result.then(
              (result) => result.exitCode,
              (error: unknown) => (SandportError.hasCode(error, "NOT_FOUND") ? "not found" : error),
            );
            assert.ok(ended === null || ended === "not found", `round ${round}: it was killed, got ${String(ended)}`);
          }
        }
      } finally {
        for (const sleep of sleeps) killProcessesWithArgument(sleep);
      }
    });

    test("startCommand: never outlives destroy; NOT_FOUND or a ref, never UNEXPECTED", async () => {
      const sleeps: string[] = [];
      try {
        for (let round = 0; round < ROUNDS; round++) {
          const sleep = uniqueSleep();
          sleeps.push(sleep);
          const handle = await runtime.launch();
          const started = settle(runtime.startCommand(handle, { sessionId: "race", argv: ["sleep", sleep] }), round);
          await headStart(round);
          await runtime.destroy(handle);
          await started;
          assert.deepEqual(processesWithArgument(sleep), [], `round ${round}: the command outlived destroy`);
          assert.equal(existsSync(`${root.path}/${handle.id}`), false, `round ${round}: the sandbox stays gone`);
        }
      } finally {
        for (const sleep of sleeps) killProcessesWithArgument(sleep);
      }
    });

    test("writeFiles and readFile: done or NOT_FOUND, never UNEXPECTED, nothing left behind", async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const handle = await runtime.launch();
        await runtime.writeFiles(handle, [{ path: "kept.txt", content: "kept" }]);
        const write = settle(runtime.writeFiles(handle, [{ path: "dir/new.txt", content: "new" }]), round);
        const read = settle(runtime.readFile(handle, "kept.txt"), round);
        await headStart(round);
        await runtime.destroy(handle);
        await Promise.all([write, read]);
        assert.equal(existsSync(`${root.path}/${handle.id}`), false, `round ${round}: the sandbox stays gone`);
      }
    });

    test("portEndpoint of a second instance while the first destroys: the URL or NOT_FOUND, then NOT_FOUND", async () => {
      const second = new LocalRuntime({ root: root.path, isolation, killGraceMs: 50 });
      for (let round = 0; round < ROUNDS; round++) {
        const ports = [8080, 8081];
        const handle = await runtime.launch({ network: "all", ...(isolation === "none" ? {} : { ports }) });
        await second.portEndpoint(handle, 8080);
        // 8081: a forwarder the second instance starts while the sandbox's files go.
        const during = Promise.all(ports.map((port) => settle(second.portEndpoint(handle, port), round)));
        await headStart(round);
        await runtime.destroy(handle);
        await during;
        for (const port of ports) {
          await assert.rejects(second.portEndpoint(handle, port), (error) => SandportError.hasCode(error, "NOT_FOUND"));
        }
      }
    });
  });

  describe(`${isolation}: another instance's calls racing destroy by 0-11 ms`, () => {
    const runtime = new LocalRuntime({ root: root.path, isolation, killGraceMs: 50 });
    const second = new LocalRuntime({ root: root.path, isolation, killGraceMs: 50 });

    test("exec, startCommand, writeFiles, readFile: done or NOT_FOUND, never UNEXPECTED", async () => {
      const sleeps: string[] = [];
      try {
        for (let round = 0; round < ROUNDS; round++) {
          const sleep = uniqueSleep();
          sleeps.push(sleep);
          const handle = await runtime.launch();
          await second.writeFiles(handle, [{ path: "kept.txt", content: "kept" }]);
          const calls = Promise.all([
            settle(second.exec(handle, { argv: ["true"] }), round),
            settle(second.startCommand(handle, { sessionId: "race", argv: ["sleep", sleep] }), round),
            settle(second.writeFiles(handle, [{ path: "dir/new.txt", content: "new" }]), round),
            settle(second.readFile(handle, "kept.txt"), round),
          ]);
          await headStart(round);
          await runtime.destroy(handle);
          await calls;
        }
      } finally {
        for (const sleep of sleeps) killProcessesWithArgument(sleep);
      }
    });
  });
}
