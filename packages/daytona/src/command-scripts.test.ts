// The scripts the adapter sends, run by this machine's own shells the way the
// daemon runs a command string (`bash -c`, stderr into stdout): a command's
// output is its own, with no notice of a wrapper shell in it, whether it ends
// normally, by a signal, or is never found; its exit status is kept.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { after, test } from "node:test";
import { EXEC_MARKER_ENV, type ExecRequest, validateExecRequest } from "@sandport/core";
import { planStdin } from "@sandport/core/adapter";
import { cappedScript, daemonCommand, requestCommand, sessionScript } from "./command-scripts.js";

const home = mkdtempSync(`${tmpdir()}/sandport-scripts-`);
after(() => rmSync(home, { recursive: true, force: true }));

const KILLED = { argv: ["sh", "-c", "echo dying; kill -KILL $$"] };

/** `request` as the command a plan carries: `requestCommand`, stdin embedded or `/dev/null`. */
function command(request: ExecRequest): string {
  const valid = validateExecRequest(request, { root: home, provider: "daytona" });
  const own = requestCommand(valid);
  if (valid.stdin === undefined) return `${own} </dev/null`;
  return planStdin(own, valid.stdin, { cwd: home, scratchDirectory: home, name: "stdin" }).command;
}

/** Runs `script` as the daemon runs a command string; resolves its merged output and exit status. */
function run(script: string, input = ""): { output: string; status: number | null } {
  const daemon = 'exec 2>&1; exec bash -c "$1"';
  const ran = spawnSync("sh", ["-c", daemon, "daemon", daemonCommand(script)], {
    cwd: home,
    // A fixed PATH, as in a sandbox: a directory on the caller's PATH it may not search (root's, under
    // `su`) would make a missing program "Permission denied" (126) instead of "not found" (127).
    env: { HOME: home, PATH: "/usr/local/bin:/usr/bin:/bin" },
    input,
    encoding: "utf8",
    timeout: 20_000,
  });
  return { output: ran.stdout, status: ran.status };
}

/** A session script for `commandText`, its watchdog far off. */
function session(commandText: string, interactive = false): string {
  return sessionScript({
    home,
    cwd: home,
    env: { FROM_REQUEST: "yes" },
    marker: "scripts-test",
    command: commandText,
    watchdogMs: 60_000,
    timeoutMark: `${home}/timeouts/mark`,
    interactive,
  });
}

test("exec's capped script: a command killed by a signal leaves only its own output, and its status", () => {
  assert.deepEqual(run(cappedScript(command(KILLED), 1_000)), { output: "dying\n", status: 137 });
  const fed = { ...KILLED, argv: ["sh", "-c", "cat; kill -KILL $$"], stdin: "fed\n" };
  assert.deepEqual(run(cappedScript(command(fed), 1_000)), { output: "fed\n", status: 137 });
});

test("exec's capped script: stderr merged in order, the exit code kept, a missing program reported", () => {
  const both = { shell: "echo out; echo err >&2; exit 3" };
  assert.deepEqual(run(cappedScript(command(both), 1_000)), { output: "out\nerr\n", status: 3 });
  const missing = run(cappedScript(command({ argv: ["sandport-no-such-program"] }), 1_000));
  assert.equal(missing.status, 127);
  assert.match(missing.output, /sandport-no-such-program: not found/);
  assert.deepEqual(run(cappedScript(command({ shell: "yes" }), 5)), { output: "y\ny\ny\n", status: 141 });
});

test("a session script: a command killed by a signal leaves only its own output, and its status", () => {
  assert.deepEqual(run(session(command(KILLED))), { output: "dying\n", status: 137 });
  const env = { shell: 'echo "$FROM_REQUEST"; echo err >&2; exit 4' };
  assert.deepEqual(run(session(command(env))), { output: "yes\nerr\n", status: 4 });
});

test("an interactive session script: input reaches the command; its death by a signal leaves only its output", () => {
  const valid = validateExecRequest({ argv: ["sh", "-c", "cat; kill -KILL $$"] }, { root: home, provider: "daytona" });
  const input = `${Buffer.from("typed\n").toString("base64")}\n.\n`;
  assert.deepEqual(run(session(requestCommand(valid), true), input), { output: "typed\n", status: 137 });
});

test("a session script's watchdog starts its clock once the command's start record exists", () => {
  // The record comes 1 s after the script starts, and the watchdog allows 0.6 s: timed from the script's
  // start the command would die before it says "alive" at 1.3 s; timed from the record it says it, then dies.
  const marker = "scripts-test-record";
  const script = sessionScript({
    home,
    cwd: home,
    env: { [EXEC_MARKER_ENV]: marker },
    marker,
    command: "sleep 1; echo started > record.txt; sleep 0.3; echo alive; sleep 30",
    watchdogMs: 600,
    timeoutMark: `${home}/timeouts/record-mark`,
    startRecord: `${home}/record.txt`,
  });
  assert.deepEqual(run(script), { output: "alive\n", status: 124 });
});
