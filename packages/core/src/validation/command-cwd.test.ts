import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { SandportError } from "../errors/sandport-error.js";
import { validateCwd } from "./command-cwd.js";

const refused = (error: unknown) => SandportError.hasCode(error, "INVALID_REQUEST");

describe("validateCwd", () => {
  test("a relative path, or none, stays workspace-relative", () => {
    assert.deepEqual(validateCwd(undefined), { kind: "workspace", path: "" });
    assert.deepEqual(validateCwd("app/./src/"), { kind: "workspace", path: "app/src" });
    assert.deepEqual(validateCwd("."), { kind: "workspace", path: "" });
  });

  test("an absolute path at or under the root, once normalised, names the workspace", () => {
    assert.deepEqual(validateCwd("/workspace"), { kind: "workspace", path: "" });
    assert.deepEqual(validateCwd("/workspace/app/"), { kind: "workspace", path: "app" });
    assert.deepEqual(validateCwd("//workspace//./app", { root: "/workspace" }), { kind: "workspace", path: "app" });
    assert.deepEqual(validateCwd("/home/user/x", { root: "/home/user/" }), { kind: "workspace", path: "x" });
  });

  test("an absolute path elsewhere is kept absolute and normalised", () => {
    assert.deepEqual(validateCwd("/tmp"), { kind: "sandbox", path: "/tmp" });
    assert.deepEqual(validateCwd("/"), { kind: "sandbox", path: "/" });
    assert.deepEqual(validateCwd("//tmp/./a/"), { kind: "sandbox", path: "/tmp/a" });
    assert.deepEqual(validateCwd("/workspaces", { root: "/workspace" }), { kind: "sandbox", path: "/workspaces" });
    assert.deepEqual(validateCwd("/tmp/a b%20c"), { kind: "sandbox", path: "/tmp/a b%20c" });
  });

  test("under a root of / every directory is the workspace's", () => {
    assert.deepEqual(validateCwd("/tmp", { root: "/" }), { kind: "workspace", path: "tmp" });
  });

  test("traversal, control characters, backslashes and non-strings are refused, whatever the form", () => {
    for (const input of [
      "../up",
      "a/../../up",
      "/tmp/../etc",
      "/workspace/../tmp",
      "/tmp/%2e%2e/etc",
      "/tmp/%252e%252e",
      "/tmp/a\u0000b",
      "/tmp/a\nb",
      "/tmp\\x",
      "a%2F..%2Fb",
      42,
      null,
    ]) {
      assert.throws(() => validateCwd(input, { provider: "fake" }), refused, JSON.stringify(input));
    }
  });

  test("the refusal names the field and the provider", () => {
    assert.throws(
      () => validateCwd("/tmp/../etc", { provider: "fake" }),
      (error) => refused(error) && error.provider === "fake" && /^cwd "\/tmp\/\.\.\/etc"/.test(error.message),
    );
  });
});
