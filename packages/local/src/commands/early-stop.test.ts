// A command stopped the moment it is spawned, or the moment bubblewrap has a child: bubblewrap may not have
// started its child yet, or its child may not have set its parent-death signal yet (then a bubblewrap that
// dies leaves it running). Whichever, nothing of the command runs on.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, describe, test } from "node:test";
import { DEFAULT_BWRAP_PATH } from "../options.js";
import {
  bwrapSkipReason,
  killProcessesWithArgument,
  processesWithArgument,
  temporaryDirectory,
  uniqueSleep,
  waitFor,
} from "../runtime.fixture.js";
import { buildBwrapInvocation } from "./bwrap.js";
import { runCommand } from "./process-runner.js";

const skip = await bwrapSkipReason();
const workspace = temporaryDirectory("early-stop");
after(() => workspace.remove());
const ROUNDS = 200;

/** Calls `then` once `pid` has a child (or has exited), looking on every turn of the event loop. */
function whenChildOf(pid: number, then: () => void): void {
  let children: string;
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8");
  } catch {
    then();
    return;
  }
  if (children.trim() !== "") then();
  else setImmediate(() => whenChildOf(pid, then));
}

describe("namespaces: a command stopped as soon as it is spawned", { skip }, () => {
  test(`leaves nothing running (${ROUNDS} rounds)`, async () => {
    const sleeps: string[] = [];
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const sleep = uniqueSleep();
        sleeps.push(sleep);
        const invocation = buildBwrapInvocation({
          workspaceDirectory: workspace.path,
          workspaceRoot: "/workspace",
          cwd: "/workspace",
          network: false,
          readOnlyPaths: [],
          env: { PATH: "/usr/bin:/bin" },
          command: ["sleep", sleep],
        });
        const stop = new AbortController();
        const outcome = await runCommand({
          plan: {
            file: DEFAULT_BWRAP_PATH,
            args: invocation.args,
            fd3: invocation.fd3,
            env: {},
            cwd: "/",
            isolation: "namespaces",
          },
          timeoutMs: 10_000,
          maxOutputBytes: 1024,
          killGraceMs: 50,
          signal: stop.signal,
          // As soon as bubblewrap has a child (the PID namespace's init), which has not set its parent-death
          // signal yet; one round in ten right after `spawn`, before it can have one.
          onSpawned: (pid) => {
            if (round % 10 === 0) stop.abort();
            else whenChildOf(pid, () => stop.abort());
            return undefined;
          },
        });
        assert.equal(outcome.exitCode, null);
        const gone = await waitFor(() => processesWithArgument(sleep).length === 0, 2_000);
        assert.ok(gone, `round ${round}: the command outlived its stop`);
      }
    } finally {
      for (const sleep of sleeps) killProcessesWithArgument(sleep);
    }
  });
});
