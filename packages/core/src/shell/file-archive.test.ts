import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { type ArchiveFile, encodeFileArchive, fileArchiveScript } from "./file-archive.js";

const scratch = mkdtempSync(join(tmpdir(), "sandport-archive-"));
after(() => rmSync(scratch, { recursive: true, force: true }));
let made = 0;

/** Runs the unpack script with /bin/sh, from `/`, the archive on stdin, into a fresh workspace; its temp files in `temp`. */
function unpack(stdin: Uint8Array, workspace = join(scratch, `ws-${made++}`), shell = "/bin/sh") {
  const temp = join(scratch, `tmp-${made++}`);
  mkdirSync(temp);
  const run = spawnSync(shell, ["-c", fileArchiveScript(workspace)], {
    input: stdin,
    cwd: "/",
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", TMPDIR: temp },
  });
  return { workspace, temp, status: run.status, stderr: run.stderr.toString() };
}

const bytes = (text: string) => new TextEncoder().encode(text);
const file = (path: string, content: Uint8Array, mode = 0o644): ArchiveFile => ({ path, content, mode });

/** /bin/sh, and bash in its POSIX mode where the machine has it (another reader of `read` and `printf %b`). */
const SHELLS = ["/bin/sh", ...["/bin/bash", "/usr/bin/bash"].filter((path) => existsSync(path)).slice(0, 1)];

describe("fileArchiveScript with /bin/sh", () => {
  test("writes every file exactly, with its mode, into a workspace it makes", () => {
    for (const shell of SHELLS) writesEveryFile(shell);
  });

  function writesEveryFile(shell: string) {
    const allBytes = Uint8Array.from({ length: 256 }, (_, index) => index);
    const large = Uint8Array.from({ length: (3 << 20) + 77 }, (_, index) => (index * 131 + (index >> 8)) & 0xff);
    const files = [
      file("plain.txt", bytes("hello\n")),
      file("with space/and 'quotes' \"both\".txt", bytes("quoted")),
      file("new\nline/name\n", bytes("newlines in the path")),
      file("back\\slash %s %b $HOME `x`.txt", bytes("shell characters")),
      file("ünïcödé/日本語.txt", bytes("utf-8 path")),
      file("-leading-dash", bytes("dash")),
      file("binary/all-bytes.bin", allBytes),
      file("binary/invalid-utf8.bin", Uint8Array.from([0xc3, 0x28, 0xff, 0xfe, 0, 0, 0x80])),
      file("empty", new Uint8Array(0), 0o600),
      file("a/b/c/d/e/deep.sh", bytes("#!/bin/sh\necho deep\n"), 0o755),
      file("large/three-mib.bin", large, 0o640),
      file("after-large.txt", bytes("still in order"), 0o400),
    ];
    const { workspace, temp, status, stderr } = unpack(encodeFileArchive(files), undefined, shell);
    assert.equal(status, 0, `${shell}: ${stderr}`);
    for (const { path, content, mode } of files) {
      assert.deepEqual(new Uint8Array(readFileSync(join(workspace, path))), content, path);
      assert.equal(statSync(join(workspace, path)).mode & 0o7777, mode, `${path} mode`);
    }
    const directoryMode = 0o777 & ~process.umask();
    for (const directory of ["a/b/c/d/e", "large", "binary"]) {
      assert.equal(
        statSync(join(workspace, directory)).mode & 0o777,
        directoryMode,
        `${directory} made with the umask`,
      );
    }
    assert.deepEqual(readdirSync(temp), [], "the stored archive is removed");
    const leftovers = spawnSync("find", [workspace, "-name", ".sandport-*"]).stdout.toString();
    assert.equal(leftovers, "", "no temporary file is left beside a written one");
  }

  test("an overwrite replaces the whole file and its mode; a final symlink inside is written through", () => {
    const workspace = join(scratch, "overwrite");
    mkdirSync(join(workspace, "links"), { recursive: true });
    writeFileSync(join(workspace, "old.txt"), "a much longer first version");
    writeFileSync(join(workspace, "target.txt"), "before");
    symlinkSync("../target.txt", join(workspace, "links", "to-target"));
    const first = unpack(
      encodeFileArchive([file("old.txt", bytes("short"), 0o700), file("links/to-target", bytes("through"))]),
      workspace,
    );
    assert.equal(first.status, 0, first.stderr);
    assert.equal(readFileSync(join(workspace, "old.txt"), "utf8"), "short");
    assert.equal(statSync(join(workspace, "old.txt")).mode & 0o777, 0o700);
    assert.ok(lstatSync(join(workspace, "links", "to-target")).isSymbolicLink(), "the link stays a link");
    assert.equal(readFileSync(join(workspace, "target.txt"), "utf8"), "through");
  });

  test("a path that is a directory fails with a message, after the files before it", () => {
    const workspace = join(scratch, "directory");
    mkdirSync(join(workspace, "taken"), { recursive: true });
    const { status, stderr } = unpack(
      encodeFileArchive([file("first.txt", bytes("1")), file("taken", bytes("2")), file("last.txt", bytes("3"))]),
      workspace,
    );
    assert.equal(status, 65);
    assert.match(stderr, /taken is a directory/);
    assert.equal(readFileSync(join(workspace, "first.txt"), "utf8"), "1");
    assert.throws(() => statSync(join(workspace, "last.txt")), /ENOENT/);
  });

  test("a cut or foreign stdin writes nothing", () => {
    const archive = encodeFileArchive([file("a.txt", bytes("aaaa")), file("b.txt", bytes("bbbb"))]);
    const cut = unpack(archive.subarray(0, archive.byteLength - 1));
    assert.notEqual(cut.status, 0);
    assert.match(cut.stderr, /arrived incomplete/);
    assert.deepEqual(readdirSync(cut.workspace), []);
    assert.deepEqual(readdirSync(cut.temp), [], "the stored archive is removed on failure too");
    const foreign = unpack(bytes("GET / HTTP/1.1\r\n\r\n"));
    assert.notEqual(foreign.status, 0);
    assert.match(foreign.stderr, /not a version 1 archive/);
    const empty = unpack(new Uint8Array(0));
    assert.notEqual(empty.status, 0);
  });

  test("without a workspace root it writes where it starts", () => {
    const workspace = join(scratch, "started-in");
    mkdirSync(workspace);
    const run = spawnSync("/bin/sh", ["-c", fileArchiveScript()], {
      input: encodeFileArchive([file("d/here.txt", bytes("here"), 0o600)]),
      cwd: workspace,
    });
    assert.equal(run.status, 0, run.stderr.toString());
    assert.equal(readFileSync(join(workspace, "d/here.txt"), "utf8"), "here");
    assert.equal(statSync(join(workspace, "d/here.txt")).mode & 0o777, 0o600);
  });

  test("an empty archive writes nothing and succeeds", () => {
    const { workspace, status, stderr } = unpack(encodeFileArchive([]));
    assert.equal(status, 0, stderr);
    assert.deepEqual(readdirSync(workspace), []);
  });
});

describe("encodeFileArchive", () => {
  test("a fixed-width header states the counts and the total; large contents start on a 512-byte boundary", () => {
    const large = new Uint8Array(5000).fill(7);
    const archive = encodeFileArchive([file("s", bytes("x")), file("l", large)]);
    const header = Buffer.from(archive.subarray(0, 64)).toString("latin1");
    const [magic, version, count, manifestBytes, total] = header.trim().split(" ");
    assert.deepEqual([magic, version, count, total], ["sandport-files", "1", "2", String(archive.byteLength)]);
    assert.equal(header.endsWith("\n"), true);
    const dataStart = 64 + Number(manifestBytes);
    assert.equal(dataStart % 512, 0);
    const manifest = Buffer.from(archive.subarray(64, dataStart)).toString("latin1").split("\n");
    assert.equal(manifest[0], "644 0 1 s");
    const offset = Number((manifest[1] as string).split(" ")[1]);
    assert.equal((dataStart + offset) % 512, 0);
    assert.deepEqual(archive.subarray(dataStart + offset, dataStart + offset + 5000), large);
  });

  test("path bytes outside [A-Za-z0-9._/-] are octal escapes", () => {
    const archive = encodeFileArchive([file("a b\\\né", bytes(""))]);
    const line = Buffer.from(archive.subarray(64)).toString("latin1").split("\n")[0];
    assert.equal(line, "644 0 0 a\\0040b\\0134\\0012\\0303\\0251");
  });
});
