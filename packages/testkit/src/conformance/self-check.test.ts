// Proves the conformance suite is not vacuous: against a deliberately broken runtime
// (self-check.fixture.ts, run in a child `node --test`) the checks aimed at each break must fail,
// while checks of behaviour left intact still pass.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const repositoryRoot = fileURLToPath(new URL("../../../../", import.meta.url));
const fixture = fileURLToPath(new URL("./self-check.fixture.ts", import.meta.url));

/** Runs the fixture in a child test process with the TAP reporter; resolves its exit code and output. */
function runFixture(): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    // Under `node --test`, NODE_TEST_CONTEXT tells a child it is a runner's worker; this child is a runner itself.
    const { NODE_TEST_CONTEXT: _, ...env } = process.env;
    const child = spawn(process.execPath, ["--import", "tsx", "--test", "--test-reporter=tap", fixture], {
      cwd: repositoryRoot,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}

/** The outcome of every conformance check in a TAP report, by check id. */
function outcomes(output: string): Map<string, "ok" | "not ok" | "skip" | "todo"> {
  const found = new Map<string, "ok" | "not ok" | "skip" | "todo">();
  for (const match of output.matchAll(/^\s*(ok|not ok) \d+ - ([a-z-]+\.[a-z0-9-]+): .*$/gm)) {
    const [line, verdict, id] = match as unknown as [string, "ok" | "not ok", string];
    found.set(id, line.includes("# SKIP") ? "skip" : line.includes("# TODO") ? "todo" : verdict);
  }
  return found;
}

test("the conformance suite fails a deliberately broken runtime, check by check", { timeout: 120_000 }, async () => {
  const { code, output } = await runFixture();
  const seen = outcomes(output);
  const show = () => [...seen].map(([id, verdict]) => `${verdict} ${id}`).join("\n");
  assert.notEqual(code, 0, "the child test run must fail");
  assert.ok(seen.size > 40, `the child reported only ${seen.size} checks:\n${output.slice(-3000)}`);
  const mustFail = {
    "exec.env-isolation": "the host env leaks into exec",
    "streaming.env-isolation": "the host env leaks into execStream",
    "exec.cwd": "exec ignores cwd",
    "files.path-escapes": "'..' is silently dropped instead of refused",
    "files.stream-refusals": "'..' is silently dropped by readFileStream instead of refused",
    "exec.exit-code": "a non-zero exit throws",
    "exec.abort": "an aborted exec rejects but its command runs on",
    "capabilities.consistent": "asyncExec is half-implemented",
    "capabilities.structural": "startCommand is present while asyncExec is absent",
    "streaming.output-cap-result": "execStream calls a command stopped by the output cap timed out",
    "exec.shell": "a check listed in knownDeviations passes",
  };
  for (const [id, breakage] of Object.entries(mustFail)) {
    assert.equal(seen.get(id), "not ok", `${id} must fail when ${breakage}; outcomes:\n${show()}`);
  }
  assert.equal(seen.get("interactive.timeout-result"), "todo", "a listed known deviation that fails is a TODO");
  assert.match(output, /KNOWN DEVIATION interactive\.timeout-result/, "and it is reported by name");
  for (const id of [
    "files.text",
    "files.binary",
    "exec.argv-verbatim",
    "exec.timeout",
    "lifecycle.destroy",
    "streaming.timeout-result",
  ]) {
    assert.equal(seen.get(id), "ok", `${id} tests an unbroken behaviour and must pass; outcomes:\n${show()}`);
  }
  for (const id of ["async.start-status-logs", "async.idempotent-session"]) {
    assert.equal(seen.get(id), "skip", `${id} must be skipped (with its reason) once asyncExec is absent`);
  }
});
