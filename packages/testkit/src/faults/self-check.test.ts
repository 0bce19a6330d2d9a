// Proves the wire-fault suite is not vacuous: run against a runtime that throws its provider's raw
// errors, or one that ignores its deadline (self-check.fixture.ts, in a child `node --test`), the
// cases aimed at each break fail with the reason, while the same cases pass against the sound
// variant of that runtime.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";

const repositoryRoot = fileURLToPath(new URL("../../../../", import.meta.url));
const fixture = fileURLToPath(new URL("./self-check.fixture.ts", import.meta.url));

/** Runs the fixture in `mode` with the TAP reporter; resolves its exit code and output. */
function runFixture(mode: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    // Under `node --test`, NODE_TEST_CONTEXT tells a child it is a runner's worker; this child is a runner itself.
    const { NODE_TEST_CONTEXT: _, ...env } = process.env;
    const child = spawn(process.execPath, ["--import", "tsx", "--test", "--test-reporter=tap", fixture], {
      cwd: repositoryRoot,
      env: { ...env, WIRE_FAULTS_MODE: mode },
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

/** Each case that ran (skips left out): its verdict and, when it failed, the first error line after it. */
function verdicts(output: string): Map<string, string> {
  const found = new Map<string, string>();
  const lines = output.split("\n");
  lines.forEach((line, index) => {
    const match = /^\s*(ok|not ok) \d+ - ([a-z-]+): /.exec(line);
    if (!match || line.includes("# SKIP")) return;
    const [, verdict, id] = match as unknown as [string, string, string];
    const error = lines.slice(index + 1, index + 12).find((next) => /^\s*error: /.test(next));
    found.set(id, verdict === "ok" ? "ok" : `not ok ${error?.trim() ?? ""}`);
  });
  return found;
}

const CHECKED = ["create-rate-limited", "create-past-deadline", "exec-refused", "exec-past-deadline", "stream-cut"];

describe("the wire-fault suite against a deliberately broken runtime", { timeout: 120_000 }, () => {
  test("a sound runtime passes the cases the broken ones fail", async () => {
    const { code, output } = await runFixture("sound");
    const seen = verdicts(output);
    assert.deepEqual(
      CHECKED.map((id) => `${id} ${seen.get(id)}`),
      CHECKED.map((id) => `${id} ok`),
      output.slice(-3000),
    );
    assert.equal(code, 0);
  });

  test("a runtime that throws its provider's raw errors fails: every error must be typed", async () => {
    const { code, output } = await runFixture("untyped");
    const seen = verdicts(output);
    assert.notEqual(code, 0);
    for (const id of ["create-rate-limited", "exec-refused"]) {
      assert.match(seen.get(id) ?? "missing", /^not ok .*not a SandportError: ProviderError: HTTP (429|503)/, id);
    }
  });

  test("a runtime that ends a cut stream as if complete fails: lost output is never a result", async () => {
    const { code, output } = await runFixture("short");
    const seen = verdicts(output);
    assert.notEqual(code, 0);
    assert.match(seen.get("stream-cut") ?? "missing", /^not ok /);
    assert.match(output, /a stream cut mid-way that ended without an error reports its whole output/);
  });

  test("a runtime that ignores its deadline fails: a call past its deadline must not hang", async () => {
    const { code, output } = await runFixture("hangs");
    const seen = verdicts(output);
    assert.notEqual(code, 0);
    for (const id of ["create-past-deadline", "exec-past-deadline"]) {
      assert.match(seen.get(id) ?? "missing", /^not ok .*past its deadline hung: not settled/, id);
    }
  });
});
