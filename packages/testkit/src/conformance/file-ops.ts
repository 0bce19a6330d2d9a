import assert from "node:assert/strict";
import { existsSync, rmSync } from "node:fs";
import type { FileInfo, SandboxHandle } from "@sandport/core";
import { assertSucceeded, expectCode, fileExists } from "./assertions.js";
import { escapingPaths } from "./paths.js";
import type { CheckGroup } from "./suite.js";

/** Registers the checks of `listDir`, `stat`, `mkdir` and `remove`. */
export function declareFileOpsChecks<H extends SandboxHandle>(group: CheckGroup<H>): void {
  const { runtime, suite } = group;
  const listDir = (path: string) => runtime.listDir!(group.sandbox(), path);
  const stat = (path: string) => runtime.stat!(group.sandbox(), path);
  const mkdir = (path: string) => runtime.mkdir!(group.sandbox(), path);
  const remove = (path: string) => runtime.remove!(group.sandbox(), path);

  group.check("fileops.mkdir-stat", async () => {
    const handle = group.sandbox();
    await mkdir("ops/a/b/c");
    await mkdir("ops/a/b/c");
    await mkdir("ops/a");
    assertInfo(await stat("ops/a/b/c"), { name: "c", path: "ops/a/b/c", kind: "directory" });
    await runtime.writeFiles(handle, [{ path: "ops/a/file.txt", content: "hello", mode: 0o640 }]);
    const file = await stat("ops/a/file.txt");
    assertInfo(file, { name: "file.txt", path: "ops/a/file.txt", kind: "file", size: 5 });
    if (file.mode !== undefined) assert.equal(file.mode & 0o777, 0o640, `mode ${file.mode.toString(8)}`);
    if (file.modifiedAt !== undefined) {
      const modified = Date.parse(file.modifiedAt);
      assert.ok(Math.abs(modified - Date.now()) < 3_600_000, `modifiedAt ${file.modifiedAt} is not a recent instant`);
    }
    assertInfo(await stat(`${runtime.workspaceRoot}/ops/a/file.txt`), { path: "ops/a/file.txt", kind: "file" });
    assertSucceeded(await runtime.exec(handle, { shell: "ln -s file.txt ops/a/link" }), "ln -s");
    assertInfo(await stat("ops/a/link"), { name: "link", path: "ops/a/link", kind: "symlink" });
    const seen = await runtime.exec(handle, { shell: "test -d ops/a/b/c" });
    assert.equal(seen.exitCode, 0, "a command sees the directory mkdir made");
  });

  group.check("fileops.list-dir", async () => {
    const handle = group.sandbox();
    await runtime.writeFiles(handle, [
      { path: "ops/list/x.txt", content: "xx" },
      { path: "ops/list/y.bin", content: new Uint8Array(300) },
    ]);
    await mkdir("ops/list/sub");
    assertSucceeded(await runtime.exec(handle, { shell: "ln -s x.txt ops/list/link" }), "ln -s");
    const entries = [...(await listDir("ops/list"))].sort((a, b) => a.name.localeCompare(b.name));
    assert.deepEqual(
      entries.map(({ name, path, kind }) => ({ name, path, kind })),
      [
        { name: "link", path: "ops/list/link", kind: "symlink" },
        { name: "sub", path: "ops/list/sub", kind: "directory" },
        { name: "x.txt", path: "ops/list/x.txt", kind: "file" },
        { name: "y.bin", path: "ops/list/y.bin", kind: "file" },
      ],
      "listDir lists each entry once, not recursively, with '.' and '..' left out",
    );
    assert.equal(entries.find((entry) => entry.name === "y.bin")?.size, 300, "size of y.bin");
    assert.deepEqual(await listDir("ops/list/sub"), [], "an empty directory lists nothing");
    for (const root of [".", runtime.workspaceRoot]) {
      const names = (await listDir(root)).map((entry) => entry.name);
      assert.ok(names.includes("ops"), `listDir(${JSON.stringify(root)}) lists the workspace root`);
    }
  });

  group.check("fileops.remove", async () => {
    const handle = group.sandbox();
    await runtime.writeFiles(handle, [
      { path: "ops/rm/file.txt", content: "x" },
      { path: "ops/rm/tree/a/b.txt", content: "y" },
      { path: "ops/rm/tree/c.txt", content: "z" },
    ]);
    await remove("ops/rm/file.txt");
    assert.equal(await fileExists(runtime, handle, "ops/rm/file.txt"), false, "a removed file");
    await remove("ops/rm/tree");
    await expectCode(() => stat("ops/rm/tree"), "NOT_FOUND", "stat of a removed tree");
    await remove("ops/rm/tree");
    await remove("ops/rm/never-existed");
    for (const root of [".", runtime.workspaceRoot, `${runtime.workspaceRoot}/`]) {
      await expectCode(() => remove(root), "INVALID_REQUEST", `remove(${JSON.stringify(root)}) of the workspace root`);
    }
    assertInfo(await stat("ops/rm"), { kind: "directory" });
  });

  group.check("fileops.not-found", async () => {
    await expectCode(() => stat("ops/missing"), "NOT_FOUND", "stat of a missing path");
    await expectCode(() => listDir("ops/missing"), "NOT_FOUND", "listDir of a missing directory");
  });

  group.check("fileops.path-escapes", async () => {
    const handle = group.sandbox();
    const name = `sandport-ops-escape-${suite.token}`;
    const calls = { listDir, stat, mkdir, remove } as const;
    for (const path of escapingPaths(runtime.workspaceRoot, name)) {
      for (const [method, call] of Object.entries(calls)) {
        await expectCode(() => call(path), "INVALID_REQUEST", `${method}(${JSON.stringify(path)})`);
      }
    }
    // Symlinks pointing out of the workspace: nothing may be listed, created or removed through them.
    assertSucceeded(await runtime.exec(handle, { shell: "ln -s /tmp ops-tmp-link && ln -s /etc ops-etc-link" }), "ln");
    await expectCode(() => listDir("ops-etc-link"), "INVALID_REQUEST", "listDir through a symlink to /etc");
    await expectCode(() => stat("ops-etc-link/hostname"), "INVALID_REQUEST", "stat through a symlink to /etc");
    try {
      await expectCode(() => mkdir(`ops-tmp-link/${name}`), "INVALID_REQUEST", "mkdir through a symlink to /tmp");
      await expectCode(() => remove(`ops-tmp-link/${name}`), "INVALID_REQUEST", "remove through a symlink to /tmp");
      const probe = await runtime.exec(handle, { shell: `test ! -e ../${name} && test ! -e /tmp/${name}` });
      assertSucceeded(probe, "no escaping mkdir left a directory behind");
      // For a runtime whose sandbox shares this machine's filesystem, /tmp is the host's own.
      assert.equal(existsSync(`/tmp/${name}`), false, `mkdir through a symlink made /tmp/${name}`);
    } finally {
      rmSync(`/tmp/${name}`, { recursive: true, force: true });
    }
  });
}

function assertInfo(info: FileInfo, expected: Partial<FileInfo>): void {
  for (const [key, value] of Object.entries(expected)) {
    assert.equal(info[key as keyof FileInfo], value, `${key} of ${info.path}: ${JSON.stringify(info)}`);
  }
}
