import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { SandportError } from "../errors/sandport-error.js";
import { missingCwd, resolveCwd } from "./command-cwd.js";

describe("resolveCwd", () => {
  test("a workspace directory is joined onto the runtime's root, any other kept as given", () => {
    assert.equal(resolveCwd({ kind: "workspace", path: "" }, "/home/user"), "/home/user");
    assert.equal(resolveCwd({ kind: "workspace", path: "a/b" }, "/home/user/"), "/home/user/a/b");
    assert.equal(resolveCwd({ kind: "sandbox", path: "/tmp" }, "/home/user"), "/tmp");
    assert.equal(resolveCwd({ kind: "sandbox", path: "/" }, "/workspace"), "/");
  });
});

describe("missingCwd", () => {
  test("NOT_FOUND, not retryable, naming the directory, the sandbox and the provider's words", () => {
    const cause = new Error("exit -1");
    const error = missingCwd("fake", "/tmp/nope", { sandboxId: "sb-1", reason: " no such directory\n", cause });
    assert.ok(SandportError.hasCode(error, "NOT_FOUND"));
    assert.equal(error.provider, "fake");
    assert.equal(error.retryable, false);
    assert.equal(error.cause, cause);
    assert.deepEqual(error.details, { cwd: "/tmp/nope", sandboxId: "sb-1" });
    assert.match(error.message, /working directory \/tmp\/nope does not exist in sandbox sb-1.*\(no such directory\)$/);
  });
});
