import { COMMAND_MARKER_VARIABLE } from "./command-marker.js";
import { JOIN_FAILED_EXIT, JOIN_FAILED_MESSAGE } from "./command-plan.js";

/**
 * The program that babysits one async command (`startCommand`), run as
 * `node -e SUPERVISOR_SOURCE <command directory>` in its own session so that
 * the command outlives the runtime's process.
 *
 * It reads `plan.json` (a `SpawnPlan` plus limits) from the command directory,
 * spawns the command in its own process group (as the plan's user, when it
 * names one), appends output to `stdout` and
 * `stderr` there up to the combined cap, enforces the run budget with the same
 * SIGTERM → SIGKILL sequence as `exec` (process group, cgroup leaf, and under
 * `none` every process carrying the command's `SANDPORT_LOCAL_COMMAND_ID`; see
 * `CommandTree`), records the command's pid in `child.json`, and finally
 * writes `exit.json` atomically. A command under `none` without limits is
 * moved into its leaf right after `spawn`, as `exec` does; when that fails the
 * command is killed and recorded with status 125. After the command exits,
 * whatever it left running is killed; the supervisor always scans `/proc` for
 * the marker then (one scan per async command is cheap next to a supervisor).
 * On SIGTERM (from `destroy`) it stops the command and records the kill.
 *
 * Plain CommonJS in a string, so it runs the same from TypeScript sources and
 * from the bundle, with no file to locate on disk.
 */
export const SUPERVISOR_SOURCE = String.raw`
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const { spawn } = require("node:child_process");
const directory = process.argv[1];
const plan = JSON.parse(fs.readFileSync(path.join(directory, "plan.json"), "utf8"));
const started = Date.now();
const files = {
  stdout: fs.openSync(path.join(directory, "stdout"), "a", 0o600),
  stderr: fs.openSync(path.join(directory, "stderr"), "a", 0o600),
};
let kept = 0, stdoutBytes = 0, stderrHead = "", truncated = false, timedOut = false;
let stopping = false, spawnError, joinError;

function signalGroup(pid, signal) { try { process.kill(-pid, signal); } catch {} }
function leafMembers() {
  if (!plan.leaf) return [];
  const read = (dir) => {
    let pids = [];
    try { pids = fs.readFileSync(path.join(dir, "cgroup.procs"), "utf8").split("\n").filter(Boolean).map(Number); } catch {}
    let entries = [];
    try { entries = fs.readdirSync(dir, { withFileTypes: true }); } catch {}
    for (const entry of entries) if (entry.isDirectory()) pids.push(...read(path.join(dir, entry.name)));
    return pids;
  };
  return read(plan.leaf.directory);
}
function signalLeaf(signal) { for (const pid of leafMembers()) { try { process.kill(pid, signal); } catch {} } }
function killLeaf() {
  if (!plan.leaf) return;
  if (plan.leaf.version === 2) { try { fs.writeFileSync(path.join(plan.leaf.directory, "cgroup.kill"), "1"); } catch {} }
  else signalLeaf("SIGKILL");
}
function markedPids() {
  if (!plan.marker) return [];
  const needle = Buffer.from(${JSON.stringify(COMMAND_MARKER_VARIABLE)} + "=" + plan.marker);
  let names = [];
  try { names = fs.readdirSync("/proc"); } catch {}
  const found = [];
  for (const name of names) {
    if (!/^[0-9]+$/.test(name)) continue;
    let environ;
    try { environ = fs.readFileSync("/proc/" + name + "/environ"); } catch { continue; }
    for (let at = environ.indexOf(needle); at >= 0; at = environ.indexOf(needle, at + 1)) {
      const end = at + needle.length;
      if ((at === 0 || environ[at - 1] === 0) && (end === environ.length || environ[end] === 0)) { found.push(Number(name)); break; }
    }
  }
  return found;
}
function signalMarked(signal) { for (const pid of markedPids()) { try { process.kill(pid, signal); } catch {} } }
function killMarked() {
  // Rounds until one finds nobody new: each catches what the previous one's victims forked meanwhile.
  const signalled = new Set();
  for (let round = 0; round < 16; round++) {
    let found = 0;
    for (const pid of markedPids()) {
      if (signalled.has(pid)) continue;
      signalled.add(pid);
      found++;
      try { process.kill(pid, "SIGKILL"); } catch {}
    }
    if (found === 0) return;
  }
}
function removeLeaf(then) {
  if (!plan.leaf) return then();
  const deadline = Date.now() + 3000;
  const attempt = () => {
    killLeaf();
    try {
      fs.rmdirSync(plan.leaf.directory);
      return then();
    } catch (error) {
      if (error.code === "ENOENT" || Date.now() > deadline) return then();
      setTimeout(attempt, 5);
    }
  };
  attempt();
}

const stdio = [plan.stdin ? "pipe" : "ignore", "pipe", "pipe"];
if (plan.fd3) stdio.push("pipe");
const user = plan.user ? { uid: plan.user.uid, gid: plan.user.gid } : {};
const child = spawn(plan.file, plan.args, { cwd: plan.cwd, env: plan.env, stdio, detached: true, ...user });
const pid = child.pid;
if (pid !== undefined && plan.leaf && plan.joinLeafAfterSpawn) {
  try { fs.mkdirSync(plan.leaf.directory, { recursive: true }); fs.writeFileSync(path.join(plan.leaf.directory, "cgroup.procs"), String(pid)); }
  catch (error) { if (error.code !== "ESRCH") { joinError = error; signalGroup(pid, "SIGKILL"); killLeaf(); killMarked(); } }
}
if (pid !== undefined) {
  try {
    const stat = fs.readFileSync("/proc/" + pid + "/stat", "utf8");
    const startTime = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
    fs.writeFileSync(path.join(directory, "child.json"), JSON.stringify({ pid, startTime }), { mode: 0o600 });
  } catch {}
}
function stop() {
  if (stopping || pid === undefined) return;
  stopping = true;
  signalGroup(pid, "SIGTERM");
  signalLeaf("SIGTERM");
  signalMarked("SIGTERM");
  setTimeout(() => { signalGroup(pid, "SIGKILL"); killLeaf(); killMarked(); }, plan.killGraceMs).unref();
}
const timer = setTimeout(() => { timedOut = true; stop(); }, plan.timeoutMs);
process.on("SIGTERM", stop);
const collect = (stream) => (chunk) => {
  if (truncated) return;
  const room = plan.maxOutputBytes - kept;
  const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
  if (part.length > 0) {
    kept += part.length;
    if (stream === "stdout") stdoutBytes += part.length;
    else if (stderrHead.length < 4096) stderrHead += part.toString("utf8");
    fs.writeSync(files[stream], part);
  }
  if (chunk.length > room) { truncated = true; stop(); }
};
child.stdout.on("data", collect("stdout"));
child.stderr.on("data", collect("stderr"));
if (child.stdin) { child.stdin.on("error", () => {}); child.stdin.end(Buffer.from(plan.stdin, "base64")); }
if (plan.fd3) { child.stdio[3].on("error", () => {}); child.stdio[3].end(Buffer.from(plan.fd3, "base64")); }
child.on("error", (error) => { spawnError = error; });
child.on("exit", () => {
  if (pid !== undefined) signalGroup(pid, "SIGKILL");
  killLeaf();
  killMarked();
  setTimeout(() => { child.stdout.destroy(); child.stderr.destroy(); }, 500).unref();
});
child.on("close", (code, signal) => {
  clearTimeout(timer);
  let exitCode = signal || stopping ? null : code;
  if (joinError) {
    exitCode = ${JOIN_FAILED_EXIT};
    fs.writeSync(files.stderr, ${JSON.stringify(JOIN_FAILED_MESSAGE)} + ": " + joinError.message + "\n");
  } else if (spawnError) {
    exitCode = plan.isolation === "none" && spawnError.code === "ENOENT" ? 127 : plan.isolation === "none" && spawnError.code === "EACCES" ? 126 : null;
    fs.writeSync(files.stderr, "sandport: " + plan.file + ": " + spawnError.message + "\n");
  } else if (plan.isolation === "namespaces" && exitCode === 1 && stdoutBytes === 0) {
    const failure = /^bwrap: execvp [^\n]*: (No such file or directory|Permission denied)\n?$/.exec(stderrHead);
    if (failure) exitCode = failure[1] === "Permission denied" ? 126 : 127;
  }
  const record = { exitCode, timedOut, truncated, durationMs: Date.now() - started, finishedAt: new Date().toISOString() };
  removeLeaf(() => {
    const temporary = path.join(directory, "exit.json.tmp");
    fs.writeFileSync(temporary, JSON.stringify(record), { mode: 0o600 });
    fs.renameSync(temporary, path.join(directory, "exit.json"));
    process.exit(0);
  });
});
`;
