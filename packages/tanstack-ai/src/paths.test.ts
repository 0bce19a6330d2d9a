// TanStack AI's virtual /workspace lands on the runtime's workspace root; other paths are the runtime's to judge.
import assert from "node:assert/strict";
import { test } from "node:test";
import { sandboxPath } from "./paths.js";

test("/workspace and paths under it move onto another workspace root", () => {
  assert.equal(sandboxPath("/workspace", "/home/agent"), "/home/agent");
  assert.equal(sandboxPath("/workspace/src/a.ts", "/home/agent"), "/home/agent/src/a.ts");
  assert.equal(sandboxPath("/workspace/", "/home/agent"), "/home/agent");
});

test("paths not under /workspace, relative paths, and everything on a /workspace root are kept", () => {
  assert.equal(sandboxPath("/workspaces/x", "/home/agent"), "/workspaces/x");
  assert.equal(sandboxPath("src/a.ts", "/home/agent"), "src/a.ts");
  assert.equal(sandboxPath("/etc/passwd", "/home/agent"), "/etc/passwd");
  assert.equal(sandboxPath("/workspace/a", "/workspace"), "/workspace/a");
});
