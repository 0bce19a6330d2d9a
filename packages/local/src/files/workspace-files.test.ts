// File transfer straight through the host filesystem: confinement (including symlinks) and binary safety.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { SandportError } from "@sandport/core";
import { type LocalHandle, LocalRuntime } from "../index.js";
import { temporaryDirectory } from "../runtime.fixture.js";

const root = temporaryDirectory("files");
const outside = temporaryDirectory("files-outside");
after(async () => {
  await root.remove();
  await outside.remove();
});
// No command runs here, so the isolation mode does not matter; `none` needs no bubblewrap.
const runtime = new LocalRuntime({ root: root.path, isolation: "none" });
const invalid = (error: unknown) => SandportError.hasCode(error, "INVALID_REQUEST");

async function sandbox(): Promise<LocalHandle> {
  return runtime.launch();
}

describe("binary safety", () => {
  test("all 256 byte values round-trip, by relative and absolute path", async () => {
    const handle = await sandbox();
    const bytes = Uint8Array.from({ length: 512 }, (_, index) => index % 256);
    await runtime.writeFiles(handle, [{ path: "bin/all.bytes", content: bytes, mode: 0o600 }]);
    const back = await runtime.readFile(handle, "/workspace/bin/all.bytes");
    assert.equal(Object.getPrototypeOf(back), Uint8Array.prototype);
    assert.deepEqual(back, bytes);
    assert.equal(back.buffer.byteLength, bytes.length, "the buffer behind the result holds this file alone");
    const onDisk = readFileSync(join(handle.workspaceDirectory, "bin/all.bytes"));
    assert.deepEqual(new Uint8Array(onDisk), bytes, "the host file holds exactly the bytes");
    assert.equal(statSync(join(handle.workspaceDirectory, "bin/all.bytes")).mode & 0o777, 0o600);
    await runtime.destroy(handle);
  });

  test("strings are written as UTF-8; listDir and stat describe what is there", async () => {
    const handle = await sandbox();
    await runtime.writeFiles(handle, [
      { path: "a/b/c.txt", content: "héllo ✓" },
      { path: "a/top.txt", content: "" },
    ]);
    assert.equal(new TextDecoder().decode(await runtime.readFile(handle, "a/b/c.txt")), "héllo ✓");
    const entries = await runtime.listDir(handle, "a");
    assert.deepEqual(
      entries.map((entry) => [entry.name, entry.path, entry.kind]),
      [
        ["b", "a/b", "directory"],
        ["top.txt", "a/top.txt", "file"],
      ],
    );
    const info = await runtime.stat(handle, "a/b/c.txt");
    assert.equal(info.size, Buffer.byteLength("héllo ✓"));
    await runtime.destroy(handle);
  });
});

describe("confinement", () => {
  test("'../' and absolute paths outside the workspace are refused and nothing is written", async () => {
    const handle = await sandbox();
    const escapes = [
      "../escape.txt",
      "a/../../escape.txt",
      `${outside.path}/escape.txt`,
      "/etc/escape.txt",
      "%2e%2e/x",
    ];
    for (const path of escapes) {
      await assert.rejects(
        runtime.writeFiles(handle, [
          { path: "fine.txt", content: "ok" },
          { path, content: "x" },
        ]),
        invalid,
        path,
      );
      await assert.rejects(runtime.readFile(handle, path), invalid, path);
    }
    assert.equal(existsSync(join(handle.workspaceDirectory, "fine.txt")), false, "the valid file was not written");
    assert.equal(existsSync(join(outside.path, "escape.txt")), false);
    await runtime.destroy(handle);
  });

  test("a symlinked directory pointing outside is refused for every operation; nothing is written", async () => {
    const handle = await sandbox();
    symlinkSync(outside.path, join(handle.workspaceDirectory, "link"));
    writeFileSync(join(outside.path, "secret.txt"), "secret");
    await assert.rejects(
      runtime.writeFiles(handle, [
        { path: "fine.txt", content: "ok" },
        { path: "link/planted.txt", content: "x" },
      ]),
      invalid,
    );
    assert.equal(existsSync(join(outside.path, "planted.txt")), false);
    assert.equal(existsSync(join(handle.workspaceDirectory, "fine.txt")), false, "validated all before writing any");
    await assert.rejects(runtime.readFile(handle, "link/secret.txt"), invalid);
    await assert.rejects(runtime.readFile(handle, "link/not-there.txt"), invalid, "refused, not merely missing");
    await assert.rejects(runtime.listDir(handle, "link/"), invalid);
    await assert.rejects(runtime.listDir(handle, "link/."), invalid);
    await assert.rejects(runtime.stat(handle, "link/secret.txt"), invalid);
    await assert.rejects(runtime.mkdir(handle, "link/new"), invalid);
    await assert.rejects(runtime.remove(handle, "link/secret.txt"), invalid);
    await assert.rejects(runtime.exec(handle, { argv: ["true"], cwd: "link" }), invalid);
    assert.equal(readFileSync(join(outside.path, "secret.txt"), "utf8"), "secret", "the outside file is intact");
    await runtime.destroy(handle);
    assert.equal(existsSync(join(outside.path, "secret.txt")), true, "destroy did not follow the link");
  });

  test("a final symlink is never followed, even to a file outside; stat shows it and remove unlinks it", async () => {
    const handle = await sandbox();
    writeFileSync(join(outside.path, "target.txt"), "original");
    symlinkSync(join(outside.path, "target.txt"), join(handle.workspaceDirectory, "file-link"));
    await assert.rejects(runtime.writeFiles(handle, [{ path: "file-link", content: "overwritten" }]), invalid);
    await assert.rejects(runtime.readFile(handle, "file-link"), invalid);
    assert.equal(readFileSync(join(outside.path, "target.txt"), "utf8"), "original");
    assert.equal((await runtime.stat(handle, "file-link")).kind, "symlink");
    await runtime.remove(handle, "file-link");
    assert.equal(existsSync(join(handle.workspaceDirectory, "file-link")), false);
    assert.equal(existsSync(join(outside.path, "target.txt")), true, "remove deleted the link, not its target");
    await runtime.destroy(handle);
  });

  test("in a batch of many files into one directory, a symlink or a directory among them is refused before any is written", async () => {
    const handle = await sandbox();
    mkdirSync(join(handle.workspaceDirectory, "many/taken"), { recursive: true });
    writeFileSync(join(outside.path, "many-target.txt"), "original");
    symlinkSync(join(outside.path, "many-target.txt"), join(handle.workspaceDirectory, "many/link"));
    writeFileSync(join(handle.workspaceDirectory, "many/existing.txt"), "old");
    const batch = (odd: string) =>
      [...Array.from({ length: 20 }, (_, index) => `many/new-${index}.txt`), "many/existing.txt", odd].map((path) => ({
        path,
        content: "new",
      }));
    for (const odd of ["many/link", "many/taken"]) {
      await assert.rejects(runtime.writeFiles(handle, batch(odd)), invalid, odd);
      assert.equal(
        existsSync(join(handle.workspaceDirectory, "many/new-0.txt")),
        false,
        `${odd}: written before refusing`,
      );
      assert.equal(readFileSync(join(handle.workspaceDirectory, "many/existing.txt"), "utf8"), "old");
    }
    assert.equal(readFileSync(join(outside.path, "many-target.txt"), "utf8"), "original");
    await runtime.writeFiles(handle, batch("many/last.txt"));
    assert.equal(readFileSync(join(handle.workspaceDirectory, "many/existing.txt"), "utf8"), "new");
    await runtime.destroy(handle);
  });

  test("a symlinked directory that stays inside the workspace is followed", async () => {
    const handle = await sandbox();
    mkdirSync(join(handle.workspaceDirectory, "real"));
    symlinkSync("real", join(handle.workspaceDirectory, "alias"));
    await runtime.writeFiles(handle, [{ path: "alias/through.txt", content: "in" }]);
    assert.equal(readFileSync(join(handle.workspaceDirectory, "real/through.txt"), "utf8"), "in");
    await runtime.destroy(handle);
  });

  test("a path used both as a file and as a directory in one batch is refused before writing", async () => {
    const handle = await sandbox();
    await assert.rejects(
      runtime.writeFiles(handle, [
        { path: "x", content: "file" },
        { path: "x/y", content: "child" },
      ]),
      invalid,
    );
    assert.equal(existsSync(join(handle.workspaceDirectory, "x")), false);
    await runtime.destroy(handle);
  });

  test("a FIFO with no writer is refused at once, as any non-regular file, for reads and writes", async () => {
    const handle = await sandbox();
    const made = spawnSync("mkfifo", [join(handle.workspaceDirectory, "pipe")]);
    assert.equal(made.status, 0, made.stderr.toString());
    const started = performance.now();
    await assert.rejects(runtime.readFile(handle, "pipe"), (error) => {
      assert.ok(invalid(error));
      assert.match((error as Error).message, /not a regular file/);
      return true;
    });
    await assert.rejects(runtime.writeFiles(handle, [{ path: "pipe", content: "x" }]), invalid);
    assert.ok(performance.now() - started < 2_000, "nothing blocked on the FIFO");
    assert.equal((await runtime.stat(handle, "pipe")).kind, "other");
    await runtime.destroy(handle);
  });

  test("a file larger than readFile can return is OUTPUT_LIMIT, refused before reading", async () => {
    const handle = await sandbox();
    // Sparse: 3 GiB of size, no disk.
    const made = spawnSync("truncate", ["-s", "3G", join(handle.workspaceDirectory, "huge.bin")]);
    assert.equal(made.status, 0, made.stderr.toString());
    await assert.rejects(runtime.readFile(handle, "huge.bin"), (error) => SandportError.hasCode(error, "OUTPUT_LIMIT"));
    await runtime.destroy(handle);
  });

  test("missing files are NOT_FOUND; the workspace root cannot be removed", async () => {
    const handle = await sandbox();
    await assert.rejects(runtime.readFile(handle, "nope.txt"), (error) => SandportError.hasCode(error, "NOT_FOUND"));
    await assert.rejects(runtime.remove(handle, "/workspace"), invalid);
    await runtime.remove(handle, "never-existed");
    await runtime.destroy(handle);
  });
});
