// The handle's files over a real LocalRuntime: every SandboxFs member, with rename run as `mv -T` in the sandbox.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { SandportError, type SandportErrorCode } from "@sandport/core";
import { type LocalTestRuntime, localTestRuntime } from "@sandport/testkit/fakes";
import type { SandboxHandle } from "@tanstack/ai-sandbox";
import { sandportSandboxProvider } from "./provider.js";

let local: LocalTestRuntime;
let handle: SandboxHandle;
before(async () => {
  local = await localTestRuntime("tanstack-fs");
  handle = await sandportSandboxProvider({ runtime: local.runtime }).create({ id: "fs" });
});
after(() => local.cleanup());

const hasCode = (code: SandportErrorCode) => (error: unknown) => SandportError.hasCode(error, code);

describe("fs", () => {
  test("write creates parents; read, readBytes and exists see it, by /workspace path or relative", async () => {
    await handle.fs.write("/workspace/deep/dir/a.txt", "héllo");
    await handle.fs.write("bin.dat", new Uint8Array([0, 255, 1]));
    assert.equal(await handle.fs.read("deep/dir/a.txt"), "héllo");
    assert.deepEqual(await handle.fs.readBytes("/workspace/bin.dat"), new Uint8Array([0, 255, 1]));
    assert.equal(await handle.fs.exists("/workspace/deep/dir/a.txt"), true);
    assert.equal(await handle.fs.exists("/workspace/deep/dir/missing.txt"), false);
    await assert.rejects(handle.fs.read("missing.txt"), hasCode("NOT_FOUND"));
  });

  test("list gives names, paths under the listed one and file or dir", async () => {
    await handle.fs.mkdir("/workspace/listed/sub");
    await handle.fs.write("/workspace/listed/f.txt", "f");
    const entries = await handle.fs.list("/workspace/listed/");
    assert.deepEqual(
      entries.sort((a, b) => a.name.localeCompare(b.name)),
      [
        { name: "f.txt", path: "/workspace/listed/f.txt", type: "file" },
        { name: "sub", path: "/workspace/listed/sub", type: "dir" },
      ],
    );
  });

  test("mkdir is recursive and accepts an existing directory; remove takes a tree and accepts a missing path", async () => {
    await handle.fs.mkdir("made/a/b");
    await handle.fs.mkdir("made/a/b");
    await handle.fs.write("made/a/b/c.txt", "c");
    await handle.fs.remove("/workspace/made");
    assert.equal(await handle.fs.exists("made"), false);
    await handle.fs.remove("made");
  });

  test("rename moves a file or directory, replacing a file but never moving into a directory", async () => {
    await handle.fs.write("r/from.txt", "moved");
    await handle.fs.rename("/workspace/r/from.txt", "r/to.txt");
    assert.equal(await handle.fs.read("r/to.txt"), "moved");
    assert.equal(await handle.fs.exists("r/from.txt"), false);
    await handle.fs.write("r/other.txt", "other");
    await handle.fs.rename("r/other.txt", "r/to.txt");
    assert.equal(await handle.fs.read("r/to.txt"), "other");
    await handle.fs.mkdir("r/dir");
    await handle.fs.write("r/dir/inside.txt", "i");
    await handle.fs.mkdir("r/full");
    await handle.fs.write("r/full/x", "x");
    await assert.rejects(handle.fs.rename("r/dir", "r/full"), hasCode("UNEXPECTED"));
    assert.equal(await handle.fs.exists("r/full/dir"), false, "not moved into the directory");
    await handle.fs.rename("r/dir", "r/renamed");
    assert.equal(await handle.fs.read("r/renamed/inside.txt"), "i");
  });

  test("rename of a missing path is NOT_FOUND; a path outside the workspace is refused before anything runs", async () => {
    await assert.rejects(handle.fs.rename("r/nothing", "r/else"), hasCode("NOT_FOUND"));
    await assert.rejects(handle.fs.rename("/etc/hostname", "stolen"), (error: unknown) => {
      assert.ok(SandportError.hasCode(error, "INVALID_REQUEST"));
      assert.match(error.message, /from "\/etc\/hostname" is absolute and outside the workspace/);
      return true;
    });
    await assert.rejects(handle.fs.rename("a", "../escape"), hasCode("INVALID_REQUEST"));
  });
});
