import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { SandportError } from "../errors/sandport-error.js";
import { normalizeSandboxPath, normalizeWorkspacePath, toSandboxPath } from "./workspace-path.js";

function refused(input: unknown, options = {}): void {
  assert.throws(
    () => normalizeWorkspacePath(input, options),
    (error: unknown) => SandportError.hasCode(error, "INVALID_REQUEST"),
    `expected ${JSON.stringify(input)} to be refused`,
  );
}

describe("normalizeWorkspacePath", () => {
  test("normalises harmless relative and in-root absolute paths", () => {
    assert.equal(normalizeWorkspacePath("a/b.txt"), "a/b.txt");
    assert.equal(normalizeWorkspacePath("./a//b/./c.txt"), "a/b/c.txt");
    assert.equal(normalizeWorkspacePath("/workspace/a/b"), "a/b");
    assert.equal(normalizeWorkspacePath("/home/user/w/x", { root: "/home/user/w/" }), "x");
    assert.equal(normalizeWorkspacePath("report 100%.txt"), "report 100%.txt");
    assert.equal(normalizeWorkspacePath("name%20with%20space"), "name%20with%20space");
    assert.equal(normalizeWorkspacePath("..hidden/x..y"), "..hidden/x..y");
  });

  test("accepts the root only when allowed", () => {
    refused(".");
    refused("");
    refused("/workspace");
    assert.equal(normalizeWorkspacePath(".", { allowRoot: true }), "");
    assert.equal(normalizeWorkspacePath("/workspace/", { allowRoot: true }), "");
  });

  test("refuses every '..' form, plain or percent-encoded", () => {
    for (const input of [
      "..",
      "../x",
      "a/../../x",
      "a/..",
      "a/../b",
      "/workspace/../etc/passwd",
      "%2e%2e/x",
      "%2E%2E%2Fx",
      "a%2f..%2fx",
      "%252e%252e/x",
      "a/%2e%2e",
      "..%2f",
    ]) {
      refused(input);
    }
  });

  test("refuses absolute paths outside the root, including prefix look-alikes", () => {
    refused("/etc/passwd");
    refused("/workspace-evil/x");
    refused("/workspacex");
    refused("%2fetc%2fpasswd");
  });

  test("refuses NUL, control characters and backslashes, encoded or not", () => {
    for (const input of ["a\u0000b", "a%00b", "a\nb", "a%0Ab", "a\\..\\b", "a%5c..%5cb", "\u007f"]) refused(input);
  });

  test("refuses non-strings and absurdly long paths", () => {
    refused(42);
    refused(undefined);
    refused("a/".repeat(3000));
  });

  test("names the field and provider in the error", () => {
    try {
      normalizeWorkspacePath("../x", { field: "files[3].path", provider: "e2b" });
      assert.fail("should throw");
    } catch (error) {
      assert.ok(SandportError.isInstance(error));
      assert.match(error.message, /files\[3\]\.path/);
      assert.equal(error.provider, "e2b");
      assert.equal(error.retryable, false);
    }
  });

  test("toSandboxPath joins onto the root", () => {
    assert.equal(toSandboxPath("/workspace", "a/b"), "/workspace/a/b");
    assert.equal(toSandboxPath("/workspace/", ""), "/workspace");
  });
});

describe("normalizeSandboxPath", () => {
  test("an absolute path anywhere in the sandbox, in normal form", () => {
    assert.equal(normalizeSandboxPath("/"), "/");
    assert.equal(normalizeSandboxPath("//tmp/./a//b/"), "/tmp/a/b");
    assert.equal(normalizeSandboxPath("/tmp/50%25 off"), "/tmp/50%25 off");
  });

  test("a relative path, '..', control characters, backslashes and hidden escapes are INVALID_REQUEST", () => {
    for (const input of ["tmp", "", "/tmp/..", "/a/../b", "/tmp/%2e%2e/x", "/tmp/\u0007", "/tmp\\x", 7]) {
      assert.throws(
        () => normalizeSandboxPath(input, { field: "cwd", provider: "fake" }),
        (error) => SandportError.hasCode(error, "INVALID_REQUEST") && error.provider === "fake",
        JSON.stringify(input),
      );
    }
  });
});
