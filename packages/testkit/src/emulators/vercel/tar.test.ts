// The tar reader against archives made by GNU tar in each of its name formats.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { readTar, TarFormatError } from "./tar.js";

const LONG_DIRECTORY = `${"d".repeat(120)}/${"e".repeat(120)}`;
const LONG_NAME = `${LONG_DIRECTORY}/${"f".repeat(90)}.txt`;

describe("readTar", () => {
  let root: string;

  before(() => {
    root = mkdtempSync(join(tmpdir(), "sandport-tar-"));
    mkdirSync(join(root, "src", LONG_DIRECTORY), { recursive: true });
    writeFileSync(join(root, "src", LONG_NAME), "long\n");
    writeFileSync(join(root, "src", "bin.dat"), Buffer.from([0, 255, 10, 13]));
    writeFileSync(join(root, "src", "run.sh"), "#!/bin/sh\n", { mode: 0o755 });
    writeFileSync(join(root, "src", "ünïcode.txt"), "u");
  });

  after(() => rmSync(root, { recursive: true, force: true }));

  const archive = (format: string, ...members: string[]) =>
    execFileSync("tar", ["--format", format, "-c", "-C", join(root, "src"), ...members]);

  for (const format of ["gnu", "pax", "ustar"]) {
    it(`reads files, directories, modes and names (${format})`, () => {
      const members = ["bin.dat", "run.sh", "ünïcode.txt"];
      if (format !== "ustar") members.push(LONG_NAME);
      const entries = readTar(archive(format, ...members));
      const files = entries.filter((entry) => entry.kind === "file");
      assert.deepEqual(
        files.map((entry) => entry.name),
        members,
      );
      assert.deepEqual(Buffer.from(files[0]!.content), Buffer.from([0, 255, 10, 13]));
      assert.equal(files[1]!.mode, 0o755);
      if (format !== "ustar") assert.equal(Buffer.from(files[3]!.content).toString(), "long\n");
    });
  }

  it("reads directory members", () => {
    const entries = readTar(archive("pax", "--no-recursion", LONG_DIRECTORY.split("/")[0]!));
    assert.deepEqual(
      entries.map((entry) => [entry.kind, entry.name.replace(/\/$/, "")]),
      [["directory", LONG_DIRECTORY.split("/")[0]]],
    );
  });

  it("refuses links and corrupt headers", () => {
    symlinkSync("run.sh", join(root, "src", "link"));
    assert.throws(() => readTar(archive("pax", "link")), TarFormatError);
    const corrupt = Buffer.from(archive("ustar", "run.sh"));
    corrupt[0] = corrupt[0]! ^ 0xff;
    assert.throws(() => readTar(corrupt), /checksum/);
    assert.throws(() => readTar(Buffer.from(archive("ustar", "bin.dat")).subarray(0, 514)), /past the end/);
  });
});
