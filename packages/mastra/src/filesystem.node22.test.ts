// The Mastra filesystem over a real LocalRuntime sandbox: every method, with Mastra's own errors.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import {
  DirectoryNotEmptyError,
  DirectoryNotFoundError,
  FileExistsError,
  FileNotFoundError,
  IsDirectoryError,
  LocalFilesystem,
  NotDirectoryError,
  PermissionError,
  SandboxUnsupportedFeatureError,
  StaleFileError,
  WorkspaceReadOnlyError,
} from "@mastra/core/workspace";
import { SandportError } from "@sandport/core";
import {
  type LocalTestSandbox,
  localTestSandbox,
  namespacesSkipReason,
  RecordingRuntime,
} from "@sandport/testkit/fakes";
import { createMastraFilesystem } from "./filesystem.js";

/** Why the tests that assert what only a namespaced sandbox shows (its `/workspace`, its loopback) skip here, if they do. */
const namespacesOnly = await namespacesSkipReason();

let local: LocalTestSandbox;
let fs: ReturnType<typeof createMastraFilesystem>;
before(async () => {
  local = await localTestSandbox("mastra-fs");
  fs = createMastraFilesystem({ runtime: local.runtime, handle: async () => local.handle });
});
after(() => local.cleanup());

test("write, read (bytes or text), append, exists and stat, with the sandbox's own paths", async () => {
  await fs.writeFile("notes/a.txt", "alpha");
  await fs.appendFile("notes/a.txt", Buffer.from("+beta"));
  await fs.appendFile("notes/new.txt", "fresh");
  assert.equal(await fs.readFile(`${local.runtime.workspaceRoot}/notes/a.txt`, { encoding: "utf8" }), "alpha+beta");
  assert.deepEqual(await fs.readFile("notes/new.txt"), Buffer.from("fresh"));
  assert.equal(await fs.exists("notes/a.txt"), true);
  assert.equal(await fs.exists("notes/none.txt"), false);
  const stat = await fs.stat("notes/a.txt");
  assert.deepEqual(
    [stat.name, stat.type, stat.size, stat.path],
    ["a.txt", "file", 10, `${local.runtime.workspaceRoot}/notes/a.txt`],
  );
  assert.equal((await fs.stat("notes")).type, "directory");
  await assert.rejects(fs.readFile("notes/none.txt"), FileNotFoundError);
  await assert.rejects(fs.readFile("notes"), IsDirectoryError);
  await assert.rejects(fs.stat("nowhere"), FileNotFoundError);
});

test("write options: no overwrite, no parents, a stale mtime, a directory in the way", async () => {
  await fs.writeFile("opts/one.txt", "1");
  await assert.rejects(fs.writeFile("opts/one.txt", "2", { overwrite: false }), FileExistsError);
  await assert.rejects(fs.writeFile("missing-dir/x.txt", "x", { recursive: false }), DirectoryNotFoundError);
  await assert.rejects(fs.writeFile("opts/one.txt", "3", { expectedMtime: new Date(0) }), StaleFileError);
  const { modifiedAt } = await fs.stat("opts/one.txt");
  await fs.writeFile("opts/one.txt", "4", { expectedMtime: modifiedAt });
  await assert.rejects(fs.writeFile("opts", "x"), IsDirectoryError);
  assert.equal(await fs.readFile("opts/one.txt", { encoding: "utf8" }), "4");
});

test("copy and move files and directories; delete files", { skip: namespacesOnly }, async () => {
  await fs.writeFile("cm/src.txt", "data");
  await fs.copyFile("cm/src.txt", "cm/copy.txt");
  await assert.rejects(fs.copyFile("cm/src.txt", "cm/copy.txt", { overwrite: false }), FileExistsError);
  await fs.moveFile("cm/copy.txt", "cm/moved.txt");
  assert.deepEqual(
    [await fs.exists("cm/copy.txt"), await fs.readFile("cm/moved.txt", { encoding: "utf8" })],
    [false, "data"],
  );
  await assert.rejects(fs.copyFile("cm", "cm2"), IsDirectoryError);
  await fs.copyFile("cm", "cm2", { recursive: true });
  await fs.moveFile("cm2", "cm3");
  assert.equal(await fs.readFile("cm3/src.txt", { encoding: "utf8" }), "data");
  await assert.rejects(fs.copyFile("cm/none", "x"), FileNotFoundError);
  await fs.deleteFile("cm/moved.txt");
  await assert.rejects(fs.deleteFile("cm/moved.txt"), FileNotFoundError);
  await fs.deleteFile("cm/moved.txt", { force: true });
  await assert.rejects(fs.deleteFile("cm"), IsDirectoryError);
});

test("mkdir, readdir (recursive, by extension, links) and rmdir", async () => {
  await fs.mkdir("tree/a/b");
  await fs.mkdir("tree/a/b");
  await assert.rejects(fs.mkdir("tree/x/y", { recursive: false }), DirectoryNotFoundError);
  await fs.writeFile("tree/a/one.ts", "1");
  await fs.writeFile("tree/a/b/two.md", "22");
  await local.runtime.exec(local.handle, { shell: "ln -s one.ts tree/a/link" });
  await assert.rejects(fs.mkdir("tree/a/one.ts"), FileExistsError);
  const flat = await fs.readdir("tree/a");
  assert.deepEqual(flat.map((entry) => [entry.name, entry.type, entry.size, entry.isSymlink]).sort(), [
    ["b", "directory", undefined, undefined],
    ["link", "file", undefined, true],
    ["one.ts", "file", 1, undefined],
  ]);
  const deep = await fs.readdir("tree", { recursive: true, extension: ".md" });
  assert.deepEqual(deep.map((entry) => entry.name).sort(), ["a", "a/b", "a/b/two.md"]);
  await assert.rejects(fs.readdir("none"), DirectoryNotFoundError);
  await assert.rejects(fs.readdir("tree/a/one.ts"), NotDirectoryError);
  await assert.rejects(fs.rmdir("tree"), DirectoryNotEmptyError);
  await assert.rejects(fs.rmdir("tree/a/one.ts"), NotDirectoryError);
  await assert.rejects(fs.rmdir("gone"), DirectoryNotFoundError);
  await fs.rmdir("gone", { force: true });
  await fs.rmdir("tree", { recursive: true });
  assert.equal(await fs.exists("tree"), false);
});

test("a runtime without stat, listDir, mkdir and remove: those methods are Mastra's unsupported error", async () => {
  const runtime = new RecordingRuntime();
  const recorded = await runtime.launch({});
  const bare = createMastraFilesystem({ runtime, handle: recorded });
  await bare.writeFile("a.txt", "x");
  assert.equal(await bare.readFile("a.txt", { encoding: "utf8" }), "x");
  await assert.rejects(bare.writeFile("a.txt", "y", { overwrite: false }), SandboxUnsupportedFeatureError);
  await assert.rejects(bare.stat("a.txt"), SandboxUnsupportedFeatureError);
  await assert.rejects(bare.readdir("."), SandboxUnsupportedFeatureError);
  await assert.rejects(bare.mkdir("d"), SandboxUnsupportedFeatureError);
  await assert.rejects(bare.rmdir("d"), SandboxUnsupportedFeatureError);
  assert.equal(await bare.readFile("missing.txt").catch((error: unknown) => error instanceof FileNotFoundError), true);
});

test("refusals are Mastra's errors with the SandportError as their cause: outside the workspace is PermissionError", async () => {
  await fs.writeFile("inside.txt", "in");
  /** Mastra's PermissionError for `path`, as its LocalFilesystem throws outside its base path, caused by the port's refusal. */
  const refused = (path: string) => (error: unknown) =>
    error instanceof PermissionError && error.path === path && SandportError.hasCode(error.cause, "INVALID_REQUEST");
  const calls: [string, () => Promise<unknown>][] = [
    ["/etc/hostname", () => fs.readFile("/etc/hostname")],
    ["../escape.txt", () => fs.readFile("../escape.txt")],
    ["/tmp/x.txt", () => fs.writeFile("/tmp/x.txt", "x")],
    ["../x.txt", () => fs.appendFile("../x.txt", "x")],
    ["/etc/passwd", () => fs.deleteFile("/etc/passwd")],
    ["/etc", () => fs.stat("/etc")],
    ["/etc", () => fs.exists("/etc")],
    ["/etc", () => fs.readdir("/etc")],
    ["/tmp/d", () => fs.mkdir("/tmp/d")],
    ["/tmp/d", () => fs.rmdir("/tmp/d", { force: true })],
    ["/etc/hostname", () => fs.copyFile("/etc/hostname", "copied.txt")],
    ["/tmp/moved.txt", () => fs.moveFile("inside.txt", "/tmp/moved.txt")],
  ];
  for (const [path, call] of calls) await assert.rejects(call(), refused(path), path);
  assert.equal(await fs.readFile("inside.txt", { encoding: "utf8" }), "in");
});

test("an absolute path outside the workspace is refused in the words of Mastra's own contained LocalFilesystem", async () => {
  // Mastra's LocalFilesystem (contained) takes `/hinted/a.md` as that absolute path, not as one under its base
  // path, and refuses it, telling the agent the relative path it may have meant.
  const base = mkdtempSync(join(tmpdir(), "sandport-mastra-local-fs-"));
  try {
    const mastraOwn = new LocalFilesystem({ basePath: base, contained: true });
    for (const filesystem of [fs, mastraOwn]) await filesystem.writeFile("hinted/a.md", "x");
    for (const path of ["/hinted/a.md", "/nowhere/b.md"]) {
      const theirs = await mastraOwn.readFile(path).then(
        () => assert.fail(`Mastra's LocalFilesystem read ${path}`),
        (error: unknown) => error,
      );
      assert.ok(theirs instanceof PermissionError);
      await assert.rejects(
        fs.readFile(path),
        (error: unknown) =>
          error instanceof PermissionError &&
          error.message === theirs.message &&
          error.operation === theirs.operation &&
          SandportError.hasCode(error.cause, "INVALID_REQUEST"),
      );
    }
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});

test("a link leading out of the workspace is refused as Mastra's PermissionError", {
  skip: namespacesOnly,
}, async () => {
  await local.runtime.exec(local.handle, { shell: "ln -s /etc out" });
  const refused = (error: unknown) =>
    error instanceof PermissionError &&
    error.path === "out/hostname" &&
    SandportError.hasCode(error.cause, "INVALID_REQUEST");
  await assert.rejects(fs.readFile("out/hostname"), refused);
  await assert.rejects(fs.writeFile("out/hostname", "x"), refused);
});

test("readOnly: every write is Mastra's WorkspaceReadOnlyError before anything changes; reads still work", async () => {
  await fs.writeFile("ro/kept.txt", "kept");
  const readOnly = createMastraFilesystem({ runtime: local.runtime, handle: local.handle, readOnly: true });
  for (const call of [
    () => readOnly.writeFile("ro/new.txt", "x"),
    () => readOnly.appendFile("ro/kept.txt", "x"),
    () => readOnly.deleteFile("ro/kept.txt"),
    () => readOnly.copyFile("ro/kept.txt", "ro/copy.txt"),
    () => readOnly.moveFile("ro/kept.txt", "ro/moved.txt"),
    () => readOnly.mkdir("ro/dir"),
    () => readOnly.rmdir("ro", { recursive: true }),
  ]) {
    await assert.rejects(call(), WorkspaceReadOnlyError);
  }
  assert.equal(await readOnly.readFile("ro/kept.txt", { encoding: "utf8" }), "kept");
  assert.deepEqual(
    (await readOnly.readdir("ro")).map((entry) => entry.name),
    ["kept.txt"],
  );
});
