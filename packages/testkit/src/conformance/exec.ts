import assert from "node:assert/strict";
import { type ExecResult, isAbsence, type SandboxHandle } from "@sandport/core";
import {
  allByteValues,
  assertNoHostMarker,
  assertSucceeded,
  fileExists,
  HOST_MARKER_NAME,
  readText,
  since,
  withHostEnvMarker,
} from "./assertions.js";
import type { CheckGroup } from "./suite.js";
import { GROUP_LABEL, LAUNCH_ENV_NAME, LAUNCH_ENV_VALUE } from "./suite.js";

/** Arguments that a shell would mangle; each must reach the program exactly. */
export const HOSTILE_ARGUMENTS: readonly string[] = [
  "plain",
  "two words",
  "  leading and trailing  ",
  "it's",
  '"double quoted"',
  "$(touch argv-pwned)",
  "`touch argv-pwned`",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal ${PATH} for a shell to (wrongly) expand
  "$HOME ${PATH} $0 $@ $$",
  "a;touch argv-pwned",
  "a && touch argv-pwned || true",
  "| cat > argv-pwned",
  "> argv-pwned",
  "*",
  "~",
  "line one\nline two\n",
  "tab\there\r\n",
  "back\\slash \\n \\\\",
  "%s %d %%",
  "-n",
  "--",
  "",
  "unicode: héllo wörld 日本語 🚀 \u00a0\u200b",
  "'; touch argv-pwned; echo '",
  "\\'\"\\$`",
];

/** Separator between echoed arguments: ASCII record separator, absent from every hostile argument. */
const SEPARATOR = "\u001e";

/**
 * Registers the exec checks: argv and shell, cwd, env (and that the test
 * process's env stays out), exit codes, output streams, UTF-8, stdin, result shape.
 */
export function declareExecChecks<H extends SandboxHandle>(group: CheckGroup<H>): void {
  const { runtime, suite } = group;

  group.check("exec.argv-verbatim", async () => {
    const handle = group.sandbox();
    const result = await runtime.exec(handle, { argv: ["printf", "%s\\036", ...HOSTILE_ARGUMENTS] });
    assertSucceeded(result, "printf with hostile arguments");
    const received = result.stdout.split(SEPARATOR).slice(0, -1);
    assert.deepEqual(received, [...HOSTILE_ARGUMENTS], "every argument arrives byte-identical");
    assert.equal(await fileExists(runtime, handle, "argv-pwned"), false, "an argument was run by a shell");
  });

  group.check("exec.shell", async () => {
    const handle = group.sandbox();
    const result = await runtime.exec(handle, {
      shell: 'x=$((6 * 7)); echo "answer $x" | tr a A\nfor word in one two; do printf "%s," "$word"; done',
    });
    assert.equal(assertSucceeded(result, "a shell script").stdout, "Answer 42\none,two,");
  });

  group.check("exec.cwd", async () => {
    const handle = group.sandbox();
    await runtime.writeFiles(handle, [{ path: "cwd/inner/here.txt", content: "cwd-ok" }]);
    const relative = await runtime.exec(handle, { argv: ["cat", "here.txt"], cwd: "cwd/inner" });
    assert.equal(assertSucceeded(relative, "cat with a relative cwd").stdout, "cwd-ok");
    const absolute = await runtime.exec(handle, {
      argv: ["cat", "here.txt"],
      cwd: `${runtime.workspaceRoot}/cwd/inner`,
    });
    assert.equal(assertSucceeded(absolute, "cat with an absolute cwd").stdout, "cwd-ok");
    const pwd = await runtime.exec(handle, { shell: "pwd", cwd: "cwd/inner" });
    assert.match(assertSucceeded(pwd, "pwd").stdout, /\/cwd\/inner\n$/, "pwd names the requested directory");
    const byDefault = await runtime.exec(handle, { argv: ["cat", "cwd/inner/here.txt"] });
    assert.equal(assertSucceeded(byDefault, "cat from the default cwd").stdout, "cwd-ok", "default cwd is the root");
    // A missing cwd may reject or fail the command, but must never run it somewhere else.
    const missing = await runtime.exec(handle, { shell: "echo ran > cwd-ran-elsewhere.txt", cwd: "cwd/missing" }).then(
      (result) => result,
      () => undefined,
    );
    assert.notEqual(missing?.exitCode, 0, "a command with a missing cwd succeeded");
    assert.equal(await fileExists(runtime, handle, "cwd-ran-elsewhere.txt"), false, "it ran in the workspace root");
  });

  group.check("exec.env", async () => {
    const handle = group.sandbox();
    const hostile = "spaces 'quotes' \"double\" $(not run) `x` \\ \n newline é 🚀";
    const script = `printf '%s\\036' "$${LAUNCH_ENV_NAME}" "$REQUEST_VAR" "\${EMPTY_VAR+set}" "\${UNSET_VAR+set}"`;
    const result = await runtime.exec(handle, {
      argv: ["sh", "-c", script],
      env: { REQUEST_VAR: hostile, EMPTY_VAR: "" },
    });
    const values = assertSucceeded(result, "printing env").stdout.split(SEPARATOR).slice(0, -1);
    assert.deepEqual(values, [LAUNCH_ENV_VALUE, hostile, "set", ""], "launch and request env arrive exactly");
    const overridden = await runtime.exec(handle, {
      argv: ["sh", "-c", `printf '%s' "$${LAUNCH_ENV_NAME}"`],
      env: { [LAUNCH_ENV_NAME]: "overridden" },
    });
    assert.equal(assertSucceeded(overridden, "overriding launch env").stdout, "overridden");
  });

  group.check("exec.env-isolation", async () => {
    await withHostEnvMarker(async (value) => {
      // A sandbox launched while the marker is set: a runtime that copies its env at launch shows it here.
      const fresh = await suite.launch({ labels: { [GROUP_LABEL]: "exec-env-isolation" } });
      try {
        for (const [where, handle] of [
          ["a sandbox launched with the marker set", fresh],
          ["a sandbox launched before", group.sandbox()],
        ] as const) {
          const plain = await runtime.exec(handle, { argv: ["env"] });
          assertNoHostMarker(assertSucceeded(plain, "env").stdout, value, `env in ${where}`);
          const withEnv = await runtime.exec(handle, { argv: ["env"], env: { REQUEST_VAR: "1" } });
          assertNoHostMarker(withEnv.stdout, value, `env with a request env in ${where}`);
          assert.match(withEnv.stdout, /^REQUEST_VAR=1$/m, "the request env is there");
          const shell = await runtime.exec(handle, { shell: `echo "\${${HOST_MARKER_NAME}-unset}"` });
          assert.equal(shell.stdout, "unset\n", `the marker expands inside a shell in ${where}`);
        }
      } finally {
        await suite.destroy(fresh);
      }
    });
  });

  group.check("exec.exit-code", async () => {
    const handle = group.sandbox();
    for (const [command, code] of [
      ["exit 7", 7],
      ["echo partial; exit 3", 3],
      ["exit 255", 255],
      ["false", 1],
    ] as const) {
      const result = await runtime.exec(handle, { shell: command });
      assert.equal(result.exitCode, code, `${command} exits ${code}`);
      assert.equal(result.timedOut, false, `${command}: timedOut`);
      assert.equal(result.truncated, false, `${command}: truncated`);
    }
    const partial = await runtime.exec(handle, { shell: "echo partial; exit 3" });
    assert.equal(partial.stdout, "partial\n", "output of a failing command is kept");
  });

  group.check("exec.output-streams", async (t) => {
    const handle = group.sandbox();
    const result = await runtime.exec(handle, {
      shell: "printf out-1; printf err-1 >&2; printf out-2; printf err-2 >&2",
    });
    assertSucceeded(result, "writing to both streams");
    const mode = suite.capabilities.outputStreams;
    const separate = result.stdout === "out-1out-2" && result.stderr === "err-1err-2";
    const combined = result.stdout === "out-1err-1out-2err-2" && result.stderr === "";
    if (mode === "combined") assert.ok(combined, `declared combined, got ${showOutput(result)}`);
    else if (!isAbsence(mode)) assert.ok(separate, `declared ${mode}, got ${showOutput(result)}`);
    else {
      assert.ok(separate || combined, `outputStreams is ${mode}; got neither mode: ${showOutput(result)}`);
      t.diagnostic(`outputStreams is ${mode}; observed ${separate ? "separate" : "combined"}`);
    }
  });

  group.check("exec.utf8-output", async () => {
    const handle = group.sandbox();
    const text = "日本語🚀é-".repeat(20_000);
    await runtime.writeFiles(handle, [{ path: "utf8/big.txt", content: text }]);
    const result = await runtime.exec(handle, { argv: ["cat", "utf8/big.txt"], maxOutputBytes: 1 << 20 });
    assertSucceeded(result, "cat of 300 KiB of UTF-8");
    assert.equal(result.truncated, false);
    assert.ok(
      result.stdout === text,
      `multi-byte output was damaged (${result.stdout.length} of ${text.length} chars)`,
    );
  });

  group.check("exec.stdin", async () => {
    const handle = group.sandbox();
    const text = "line one\nline two é 🚀\n";
    const echoed = await runtime.exec(handle, { argv: ["cat"], stdin: text });
    assert.equal(assertSucceeded(echoed, "cat with text stdin").stdout, text);
    const hex = await runtime.exec(handle, { shell: "od -An -tx1 -v | tr -d ' \\n'", stdin: allByteValues() });
    assert.equal(assertSucceeded(hex, "od of binary stdin").stdout, Buffer.from(allByteValues()).toString("hex"));
    const large = await runtime.exec(handle, { shell: "wc -c", stdin: new Uint8Array(1 << 20).fill(7) });
    assert.equal(assertSucceeded(large, "wc -c of 1 MiB stdin").stdout.trim(), String(1 << 20));
    const unread = await runtime.exec(handle, { argv: ["true"], stdin: new Uint8Array(1 << 20) });
    assertSucceeded(unread, "a command that never reads its 1 MiB stdin");
    const none = await runtime.exec(handle, { argv: ["cat"], timeoutMs: 10_000 });
    assert.equal(none.timedOut, false, "without stdin, cat must see end of input at once");
    assert.equal(assertSucceeded(none, "cat without stdin").stdout, "");
  });

  group.check("exec.concurrent", async () => {
    const handle = group.sandbox();
    const jobs = Array.from({ length: 16 }, (_, index) => `job-${index}`);
    const results = await Promise.all(
      jobs.map((job) =>
        runtime.exec(handle, { argv: ["sh", "-c", 'printf "%s" "$1"; printf "%s" "$1" >&2', "sh", job] }),
      ),
    );
    // Combined output carries the stderr copy after the stdout one.
    const combined = suite.capabilities.outputStreams === "combined";
    results.forEach((result, index) => {
      const job = jobs[index]!;
      assert.equal(assertSucceeded(result, job).stdout, combined ? job + job : job, `stdout of ${job}`);
      if (!combined) assert.equal(result.stderr, job);
    });
    await Promise.all(
      jobs.map((job) => runtime.writeFiles(handle, [{ path: `concurrent/${job}.txt`, content: job.repeat(1000) }])),
    );
    for (const job of jobs) {
      assert.equal(await readText(runtime, handle, `concurrent/${job}.txt`), job.repeat(1000), `concurrent/${job}.txt`);
    }
  });

  group.check("exec.result-shape", async () => {
    const handle = group.sandbox();
    const result = await runtime.exec(handle, { argv: ["true"] });
    assert.equal(result.exitCode, 0);
    assert.equal(result.stdout, "");
    assert.equal(result.stderr, "");
    assert.equal(result.truncated, false);
    assert.equal(result.timedOut, false);
    assert.ok(Number.isFinite(result.durationMs) && result.durationMs >= 0, `durationMs ${result.durationMs}`);
    const start = performance.now();
    const slow = await runtime.exec(handle, { shell: "sleep 0.3" });
    const wall = since(start);
    assert.ok(slow.durationMs >= 250, `durationMs ${slow.durationMs} for a 300 ms command`);
    assert.ok(slow.durationMs <= wall + 50, `durationMs ${slow.durationMs} exceeds the call's ${wall} ms`);
    const declared = suite.capabilities.isolation;
    for (const reported of [result.isolation, slow.isolation]) {
      if (reported === undefined) continue;
      if (isAbsence(declared)) continue;
      assert.equal(reported, declared, `a result reports isolation ${reported}, the runtime declares ${declared}`);
    }
  });
}

function showOutput(result: ExecResult): string {
  return `stdout ${JSON.stringify(result.stdout)}, stderr ${JSON.stringify(result.stderr)}`;
}
