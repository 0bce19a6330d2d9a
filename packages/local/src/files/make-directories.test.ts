import assert from "node:assert/strict";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { makeDirectories } from "./make-directories.js";

test("makeDirectories makes every missing level and names the first it made", async (t) => {
  const base = await mkdtemp(join(tmpdir(), "sandport-make-directories-"));
  t.after(() => rm(base, { recursive: true, force: true }));
  const path = join(base, "a", "b", "c");
  assert.equal(await makeDirectories(path, 0o711), join(base, "a"));
  for (const level of ["a", "a/b", "a/b/c"]) {
    assert.equal((await stat(join(base, level))).mode & 0o777, 0o711 & ~process.umask(), level);
  }
  assert.equal(await makeDirectories(path, 0o711), undefined, "an existing path makes nothing");
  assert.equal(await makeDirectories(join(path, "d"), 0o700), join(path, "d"));
});

test("makeDirectories fails with the error of a level that cannot be made, where recursive mkdir never settles", async () => {
  // Node's mkdir(..., { recursive: true }) spins forever on this path; a failure here is the whole point.
  await assert.rejects(makeDirectories("/proc/sandport-nope/x", 0o711), { code: "ENOENT" });
});

test("makeDirectories refuses a path through a file", async (t) => {
  const base = await mkdtemp(join(tmpdir(), "sandport-make-directories-"));
  t.after(() => rm(base, { recursive: true, force: true }));
  const { writeFile } = await import("node:fs/promises");
  await writeFile(join(base, "file"), "");
  await assert.rejects(makeDirectories(join(base, "file", "x"), 0o711), { code: "ENOTDIR" });
});
