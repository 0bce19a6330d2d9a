// A command that joins its sandbox's PID namespace is started by bubblewrap through an intermediate process
// that exits once it has forked the command; if it exits only after the command set its parent-death signal,
// the command is killed (exit 137) though nobody stopped it. The runner lets such a command through its gate
// only once it was handed to bubblewrap's outer process, and starts one killed before it passed the gate again.
// bubblewrap's own timing cannot be forced, so a small Python program plays its part here, with real processes
// and a real PID namespace: its intermediate exits only after the command set its parent-death signal.
import assert from "node:assert/strict";
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { identify } from "../processes/process-tree.js";
import { temporaryDirectory, waitFor } from "../runtime.fixture.js";
import { ACKNOWLEDGED_LAUNCH_GATE_SCRIPT } from "./launch-gate.js";
import { awaitPidNamespaceHandoff } from "./pid-namespace-handoff.js";
import { runCommand } from "./process-runner.js";

function skipReason(): string | undefined {
  if (process.getuid?.() !== 0) return "needs root: the test makes a PID namespace with unshare --pid";
  try {
    execFileSync("python3", ["-c", "import ctypes"], { stdio: "ignore" });
  } catch {
    return "needs python3 (with ctypes) to play bubblewrap's part";
  }
  return undefined;
}
const skip = skipReason();
const folder = temporaryDirectory("pidns-handoff");
after(() => folder.remove());

/**
 * bubblewrap's `--pidns` start, in Python: the outer process is a child
 * subreaper and exits with the command's status (128 + signal when killed);
 * its child enters the PID namespace on descriptor 5 and forks the command.
 * On the first start (counted in argv[1]) the command sets its parent-death
 * signal and the intermediate exits only after that, then the command waits
 * for ever: the SIGKILL is certain. Later starts run the launch gate at once.
 */
const FAKE_BWRAP = String.raw`
import ctypes, os, sys, signal
libc = ctypes.CDLL(None, use_errno=True)
counter, gate, command = sys.argv[1], sys.argv[2], sys.argv[3:]
with open(counter, "a") as file: file.write("start\n")
first = open(counter).read().count("start") == 1
libc.prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
ready_read, ready_write = os.pipe()
intermediate = os.fork()
if intermediate == 0:
    if libc.setns(5, 0x20000000) != 0: os._exit(90)  # CLONE_NEWPID, for the next child
    if os.fork() == 0:
        if first:
            libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG, while the intermediate is the parent
            os.write(ready_write, b"x")
            while True: signal.pause()
        os.execv("/bin/sh", ["/bin/sh", "-c", gate, "sh"] + command)
    if first: os.read(ready_read, 1)
    os._exit(0)
status = None
while True:
    try: pid, code = os.wait()
    except ChildProcessError: break
    if pid != intermediate: status = code
if status is None: sys.exit(91)
sys.exit(128 + os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status))
`;

/** A process in a PID namespace of its own, standing for a sandbox's namespace holder. */
async function startHolder(): Promise<{ holder: ChildProcess; pid: number; pidNamespace: string }> {
  const holder = spawn("unshare", ["--pid", "--fork", "sleep", "600"], { stdio: "ignore" });
  let pid: number | undefined;
  await waitFor(() => {
    const children = readFileSync(`/proc/${holder.pid}/task/${holder.pid}/children`, "utf8").trim();
    pid = children === "" ? undefined : Number(children);
    return pid !== undefined;
  }, 10_000);
  assert.ok(pid, "unshare forked its child");
  return { holder, pid, pidNamespace: readlinkSync(`/proc/${pid}/ns/pid`) };
}

describe("a command joining its sandbox's PID namespace", { skip }, () => {
  test("awaitPidNamespaceHandoff: true once a live child is in the namespace, false once the process ended", async () => {
    const { holder, pidNamespace } = await startHolder();
    try {
      const inside = spawn("unshare", ["--pid", "--fork", "sleep", "600"], { stdio: "ignore" });
      // unshare's child lives in a namespace of its own: the sandbox's is never seen, until the process ends.
      let ended = false;
      const waiting = awaitPidNamespaceHandoff(inside.pid as number, pidNamespace, () => ended);
      const exited = new Promise((resolve) => inside.once("exit", resolve));
      inside.kill("SIGKILL");
      await exited;
      ended = true;
      assert.equal(await waiting, false);
      // The holder's unshare has its child in the namespace asked for.
      assert.equal(await awaitPidNamespaceHandoff(holder.pid as number, pidNamespace, () => false), true);
    } finally {
      holder.kill("SIGKILL");
    }
  });

  test("killed by its intermediate's late exit before passing the gate, it is started again and runs once", async () => {
    const { holder, pid, pidNamespace } = await startHolder();
    const identity = identify(pid);
    assert.ok(identity);
    try {
      const script = join(folder.path, "fake-bwrap.py");
      const counter = join(folder.path, "starts");
      const ran = join(folder.path, "ran");
      writeFileSync(script, FAKE_BWRAP);
      writeFileSync(counter, "");
      const outcome = await runCommand({
        plan: {
          file: "python3",
          args: [script, counter, ACKNOWLEDGED_LAUNCH_GATE_SCRIPT, "sh", "-c", `echo once >> ${ran}; echo hello`],
          env: { PATH: "/usr/local/bin:/usr/bin:/bin" },
          cwd: "/",
          // As bubblewrap's --args 3: the namespace descriptors come after it.
          fd3: Buffer.alloc(0),
          gate: true,
          isolation: "namespaces",
          namespaces: { sandboxId: "sbx-handoff", holder: { ...identity, pidNamespace }, network: true },
        },
        timeoutMs: 30_000,
        maxOutputBytes: 4096,
        killGraceMs: 1_000,
        signal: new AbortController().signal,
      });
      assert.equal(outcome.exitCode, 0, `stderr: ${outcome.stderr.toString()}`);
      assert.equal(outcome.stdout.toString(), "hello\n");
      assert.equal(readFileSync(counter, "utf8"), "start\nstart\n", "started twice: killed once, then run");
      assert.equal(readFileSync(ran, "utf8"), "once\n", "the command itself ran once");
    } finally {
      holder.kill("SIGKILL");
    }
  });
});
