import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { enterCwdScript, enterWorkspaceScript } from "../shell/quote.js";
import { workspaceEntry } from "./workspace-entry.js";

test("a workspace under home starts in home and is named from it, never with a leading -", () => {
  assert.deepEqual(workspaceEntry("/home/user", "/home/user/workspace"), { start: "/home/user", path: "./workspace" });
  assert.deepEqual(workspaceEntry("/home/user/", "/home/user/a/-b"), { start: "/home/user/", path: "./a/-b" });
  assert.deepEqual(workspaceEntry("/home/user", "/home/user"), { start: "/home/user", path: "." });
  assert.deepEqual(workspaceEntry("/", "/workspace"), { start: "/", path: "./workspace" });
});

test("a workspace outside home starts in / and is named by its absolute path", () => {
  assert.deepEqual(workspaceEntry("/home/user", "/workspace"), { start: "/", path: "/workspace" });
  assert.deepEqual(workspaceEntry("/home/user", "/home/username/w"), { start: "/", path: "/home/username/w" });
  assert.deepEqual(workspaceEntry("/home/user/w", "/home/user"), { start: "/", path: "/home/user" });
});

test("the scripts make and enter the workspace inside the start directory, not at its absolute path", () => {
  const home = mkdtempSync(join(tmpdir(), "sandport-entry-"));
  try {
    // The sandbox's home is /home/user; here a temporary directory stands for it, as an emulator's does.
    const { path } = workspaceEntry("/home/user", "/home/user/deep/workspace");
    const run = (script: string) => execFileSync("sh", ["-c", `${script} && pwd`], { cwd: home, encoding: "utf8" });
    assert.equal(run(enterCwdScript(path, path)).trim(), join(home, "deep/workspace"));
    assert.ok(statSync(join(home, "deep/workspace")).isDirectory());
    rmSync(join(home, "deep"), { recursive: true });
    assert.equal(run(enterWorkspaceScript(path)).trim(), join(home, "deep/workspace"));
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});
