// A command asked for just before destroy: destroy either stops it or it never starts; it never runs on in
// a deleted workspace, and the caller hears NOT_FOUND, never UNEXPECTED. Each round lets the call run a
// different number of event-loop turns before destroy, so that destroy overtakes it at every step of its
// start (its record, its plan, its spawn) across the rounds.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { after, describe, test } from "node:test";
import { setImmediate as nextTurn } from "node:timers/promises";
import { SandportError } from "@sandport/core";
import { LocalRuntime } from "../index.js";
import {
  bwrapSkipReason,
  killProcessesWithArgument,
  processesWithArgument,
  temporaryDirectory,
  uniqueSleep,
} from "../runtime.fixture.js";

const isolation = (await bwrapSkipReason()) === undefined ? "namespaces" : "none";
const root = temporaryDirectory("destroy-race");
after(() => root.remove());
const ROUNDS = 40;

/** A settled call's outcome: its value, or its error, which must be NOT_FOUND. */
async function settle<T>(call: Promise<T>): Promise<T | "not found"> {
  try {
    return await call;
  } catch (error) {
    assert.ok(SandportError.hasCode(error, "NOT_FOUND"), `expected NOT_FOUND, got ${String(error)}`);
    return "not found";
  }
}

describe(`${isolation}: commands racing destroy`, () => {
  const runtime = new LocalRuntime({ root: root.path, isolation, killGraceMs: 50 });

  test("a command asked for in the same turn as destroy never starts: NOT_FOUND, and nothing runs", async () => {
    const sleeps: string[] = [];
    try {
      for (let round = 0; round < 10; round++) {
        const [execSleep, spawnSleep, startSleep] = [uniqueSleep(), uniqueSleep(), uniqueSleep()];
        sleeps.push(execSleep, spawnSleep, startSleep);
        const handle = await runtime.launch();
        const calls = [
          runtime.exec(handle, { argv: ["sleep", execSleep] }),
          runtime.spawn(handle, { argv: ["sleep", spawnSleep] }),
          runtime.startCommand(handle, { sessionId: "same-turn", argv: ["sleep", startSleep] }),
        ];
        const settled = Promise.allSettled(calls);
        // Destroy begins before any of them reached its first await's end: none may spawn anything.
        await runtime.destroy(handle);
        const outcomes = await settled;
        for (const [index, outcome] of outcomes.entries()) {
          const reason = outcome.status === "rejected" ? outcome.reason : "it started";
          assert.ok(SandportError.hasCode(reason, "NOT_FOUND"), `round ${round}, call ${index}: ${String(reason)}`);
        }
        for (const sleep of [execSleep, spawnSleep, startSleep]) {
          assert.deepEqual(processesWithArgument(sleep), [], `round ${round}: a command outlived destroy`);
        }
        assert.equal(existsSync(`${root.path}/${handle.id}`), false, `round ${round}: the sandbox stays gone`);
      }
    } finally {
      for (const sleep of sleeps) killProcessesWithArgument(sleep);
    }
  });

  test(`exec started 0-${ROUNDS - 1} event-loop turns before destroy never outlives it`, async () => {
    const sleeps: string[] = [];
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const sleep = uniqueSleep();
        sleeps.push(sleep);
        const handle = await runtime.launch();
        const exec = settle(runtime.exec(handle, { argv: ["sleep", sleep] }));
        for (let turn = 0; turn < round; turn++) await nextTurn();
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

  test(`startCommand racing destroy is NOT_FOUND or stopped by it, never UNEXPECTED`, async () => {
    const sleeps: string[] = [];
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const sleep = uniqueSleep();
        sleeps.push(sleep);
        const handle = await runtime.launch();
        const started = settle(runtime.startCommand(handle, { sessionId: "race", argv: ["sleep", sleep] }));
        for (let turn = 0; turn < round; turn++) await nextTurn();
        await runtime.destroy(handle);
        await started;
        assert.deepEqual(processesWithArgument(sleep), [], `round ${round}: the command outlived destroy`);
        assert.equal(existsSync(handle.workspaceDirectory), false, `round ${round}: the workspace is gone`);
        assert.equal(existsSync(`${root.path}/${handle.id}`), false, `round ${round}: the sandbox stays gone`);
      }
    } finally {
      for (const sleep of sleeps) killProcessesWithArgument(sleep);
    }
  });
});
