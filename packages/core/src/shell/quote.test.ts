import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { describe, test } from "node:test";
import { SandportError } from "../errors/sandport-error.js";
import {
  composeShellCommand,
  enterWorkspaceScript,
  isMissingCwdExit,
  MISSING_CWD_EXIT,
  MISSING_CWD_LINE,
  quoteArgv,
  quoteShellArg,
} from "./quote.js";

const HOSTILE = [
  "plain",
  "",
  "with space",
  "it's",
  "''",
  "'\\''",
  '"double"',
  "$(touch /tmp/sandport-pwned)",
  "`id`",
  "$HOME",
  "a;b&&c||d|e",
  "new\nline",
  "tab\there",
  "*",
  "~",
  "-n",
  "--",
  "back\\slash",
  "ünïcødé ✓ 🚀",
  "!history",
  "{a,b}",
  "#comment",
  ">redirect",
];

/** Runs a command line through a real `sh -c` and returns each argument it received. */
function argsSeenBy(commandLine: string): string[] {
  const out = execFileSync("sh", ["-c", `for arg in ${commandLine}; do printf '%s\\0' "$arg"; done`], {
    encoding: "utf8",
  });
  return out.split("\0").slice(0, -1);
}

describe("POSIX quoting", () => {
  test("every hostile string survives sh -c byte for byte", () => {
    assert.deepEqual(argsSeenBy(quoteArgv(HOSTILE)), HOSTILE);
  });

  test("each argument alone round-trips", () => {
    for (const value of HOSTILE) assert.deepEqual(argsSeenBy(quoteShellArg(value)), [value], JSON.stringify(value));
  });

  test("safe words stay readable", () => {
    assert.equal(quoteShellArg("src/app.ts"), "src/app.ts");
    assert.equal(quoteShellArg("a b"), "'a b'");
  });

  test("NUL is refused", () => {
    assert.throws(
      () => quoteShellArg("a\u0000b"),
      (error: unknown) => SandportError.hasCode(error, "INVALID_REQUEST"),
    );
  });

  test("composeShellCommand runs argv in the cwd with the env, quoting everything", () => {
    const cwd = execFileSync("mktemp", ["-d"], { encoding: "utf8" }).trim();
    try {
      const command = composeShellCommand({
        request: { argv: ["sh", "-c", 'printf "%s|%s|%s" "$PWD" "$X" "$1"', "sh", "$(id)"] },
        cwd,
        env: { X: "it's $HOME" },
      });
      assert.equal(execFileSync("sh", ["-c", command], { encoding: "utf8", env: {} }), `${cwd}|it's $HOME|$(id)`);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  test("composeShellCommand in a missing cwd runs nothing: its own exit status and line, which isMissingCwdExit knows", () => {
    const command = composeShellCommand({ request: { shell: "echo ran" }, cwd: "/nonexistent/sandport-cwd" });
    const run = spawnSync("sh", ["-c", command], { encoding: "utf8", env: {} });
    assert.deepEqual([run.status, run.stdout, run.stderr], [MISSING_CWD_EXIT, "", `${MISSING_CWD_LINE}\n`]);
    assert.ok(isMissingCwdExit(run.status, run.stderr));
    assert.ok(!isMissingCwdExit(MISSING_CWD_EXIT, "some program's own complaint\n"), "a program's own exit 66");
    assert.ok(!isMissingCwdExit(0, `${MISSING_CWD_LINE}\n`));
  });

  test("composeShellCommand makes a missing cwd first only when it is the workspace", () => {
    const base = execFileSync("mktemp", ["-d"], { encoding: "utf8" }).trim();
    try {
      const workspace = `${base}/it's the workspace/root`;
      const missing = composeShellCommand({ request: { shell: "pwd" }, cwd: `${workspace}/sub`, workspace });
      const refused = spawnSync("sh", ["-c", missing], { encoding: "utf8", env: {} });
      assert.ok(isMissingCwdExit(refused.status, refused.stderr), "a missing subdirectory is not made");
      const command = composeShellCommand({ request: { shell: "pwd" }, cwd: workspace, workspace });
      for (let run = 0; run < 2; run += 1) {
        // Made by the first run, found by the second.
        assert.equal(execFileSync("sh", ["-c", command], { encoding: "utf8", env: {} }), `${workspace}\n`);
      }
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });

  test("enterWorkspaceScript makes and enters the workspace; what follows runs only inside it", () => {
    const base = execFileSync("mktemp", ["-d"], { encoding: "utf8" }).trim();
    try {
      const workspace = `${base}/a b/ws`;
      const script = `${enterWorkspaceScript(workspace)} && pwd`;
      assert.equal(execFileSync("sh", ["-c", script], { encoding: "utf8", env: {} }), `${workspace}\n`);
      assert.equal(execFileSync("sh", ["-c", script], { encoding: "utf8", env: {} }), `${workspace}\n`);
      execFileSync("sh", ["-c", `rm -r -- '${base}/a b' && : > '${base}/a b'`]);
      const blocked = spawnSync("sh", ["-c", script], { encoding: "utf8", env: {} });
      assert.notEqual(blocked.status, 0, "a workspace that cannot be made fails the script");
      assert.equal(blocked.stdout, "", "and nothing after it ran");
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });

  test("composeShellCommand keeps a shell request inside its own sh -c", () => {
    const command = composeShellCommand({ request: { shell: "echo one; echo 'two'" }, env: { A: "1" } });
    assert.equal(execFileSync("sh", ["-c", command], { encoding: "utf8", env: {} }), "one\ntwo\n");
  });
});
