// listDir, stat, mkdir and remove against the Daytona emulator: one command
// each, symlinks seen as themselves (Daytona's file API would follow them),
// and paths that resolve outside the workspace refused inside the sandbox.
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectCode } from "@sandport/testkit/assertions";
import { emulated } from "../test/emulated.js";

const { emulator, runtime } = await emulated({ owner: "file-ops-tests" });
const handle = await runtime.launch();
await runtime.writeFiles(handle, [
  { path: "tree/b.txt", content: "12345" },
  { path: "tree/a dir/inner.txt", content: "x" },
  { path: "tree/run.sh", content: "#!/bin/sh\n", mode: 0o755 },
]);
await runtime.exec(handle, {
  shell: "cd tree && ln -s b.txt link && ln -s /etc/hostname outside && ln -s missing dangling && ln -s /tmp tmp-dir",
});

test("listDir: one command; entries sorted, symlinks (dangling ones too) reported as themselves", async () => {
  emulator.resetRequests();
  const entries = await runtime.listDir(handle, "tree");
  assert.equal(emulator.countRequests(), 1);
  assert.deepEqual(
    entries.map((entry) => [entry.name, entry.path, entry.kind]),
    [
      ["a dir", "tree/a dir", "directory"],
      ["b.txt", "tree/b.txt", "file"],
      ["dangling", "tree/dangling", "symlink"],
      ["link", "tree/link", "symlink"],
      ["outside", "tree/outside", "symlink"],
      ["run.sh", "tree/run.sh", "file"],
      ["tmp-dir", "tree/tmp-dir", "symlink"],
    ],
  );
  const file = entries.find((entry) => entry.name === "b.txt");
  assert.deepEqual([file?.size, file?.mode], [5, 0o644]);
  assert.equal(entries.find((entry) => entry.name === "run.sh")?.mode, 0o755);
  assert.ok(Math.abs(Date.parse(file?.modifiedAt ?? "") - Date.now()) < 600_000);
  assert.deepEqual(
    (await runtime.listDir(handle, ".")).map((entry) => entry.name),
    ["tree"],
  );
  await expectCode(runtime.listDir(handle, "nowhere"), "NOT_FOUND");
  await expectCode(runtime.listDir(handle, "tree/b.txt"), "INVALID_REQUEST");
  await expectCode(runtime.listDir(handle, "tree/tmp-dir"), "INVALID_REQUEST", "a listing through a symlink out");
});

test("stat: a symlink is itself, even one leading out; the root has the workspace's name", async () => {
  assert.deepEqual(await runtime.stat(handle, "tree/outside").then((info) => [info.kind, info.path]), [
    "symlink",
    "tree/outside",
  ]);
  assert.equal((await runtime.stat(handle, "tree/dangling")).kind, "symlink");
  assert.deepEqual((await runtime.stat(handle, "tree/b.txt")).size, 5);
  const root = await runtime.stat(handle, ".");
  assert.deepEqual([root.name, root.path, root.kind], ["workspace", "", "directory"]);
  await expectCode(runtime.stat(handle, "tree/none"), "NOT_FOUND");
  await expectCode(runtime.stat(handle, "tree/tmp-dir/x"), "INVALID_REQUEST", "its parent leads out");
});

test("mkdir makes parents and accepts an existing directory; never through a symlink out", async () => {
  await runtime.mkdir(handle, "made/deep/er");
  await runtime.mkdir(handle, "made/deep/er");
  assert.equal((await runtime.stat(handle, "made/deep/er")).kind, "directory");
  await expectCode(runtime.mkdir(handle, "tree/tmp-dir/escaped"), "INVALID_REQUEST");
  await expectCode(runtime.mkdir(handle, "tree/b.txt"), "UNEXPECTED", "a file stands there");
});

test("remove deletes files, trees and symlinks themselves; absent is fine; the root and escapes are refused", async () => {
  await runtime.remove(handle, "tree/link");
  assert.equal(new TextDecoder().decode(await runtime.readFile(handle, "tree/b.txt")), "12345", "the target stays");
  await runtime.remove(handle, "tree/dangling");
  await runtime.remove(handle, "tree/tmp-dir");
  await runtime.remove(handle, "tree/a dir");
  await runtime.remove(handle, "tree/never-there");
  assert.deepEqual(
    (await runtime.listDir(handle, "tree")).map((entry) => entry.name),
    ["b.txt", "outside", "run.sh"],
  );
  emulator.resetRequests();
  await expectCode(runtime.remove(handle, "."), "INVALID_REQUEST");
  await expectCode(runtime.remove(handle, "../x"), "INVALID_REQUEST");
  assert.equal(emulator.countRequests(), 0, "refused before any request");
});
