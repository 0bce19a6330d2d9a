// The guarded read command, run by real shells (bash and sh) in a scratch workspace.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { SandportError } from "../errors/sandport-error.js";
import { guardedReadOutputBytes, guardedReadScript, readCommandOutcome } from "./guarded-read.js";

const workspace = mkdtempSync(join(tmpdir(), "sandport-read-"));
after(() => rmSync(workspace, { recursive: true, force: true }));
const binary = Uint8Array.from({ length: 256 }, (_, index) => index);
writeFileSync(join(workspace, "all.bin"), binary);
writeFileSync(join(workspace, "empty"), "");
writeFileSync(join(workspace, "big"), "x".repeat(5000));
mkdirSync(join(workspace, "dir"));
symlinkSync("/etc", join(workspace, "etc"));
symlinkSync("/nowhere/at/all", join(workspace, "dangling-out"));
symlinkSync("all.bin", join(workspace, "alias"));

const missing = { sandboxId: "s", path: "/w/missing" };

for (const shell of ["bash", "sh"]) {
  const run = (relative: string, inlineBytes = 4096) => {
    const output = spawnSync(shell, ["-c", guardedReadScript(relative, inlineBytes)], {
      cwd: workspace,
      encoding: "utf8",
    });
    return { exitCode: output.status, stdout: output.stdout, stderr: output.stderr };
  };
  const outcome = (relative: string, inlineBytes?: number) =>
    readCommandOutcome(relative, run(relative, inlineBytes), "acme", missing);

  describe(`guardedReadScript under ${shell}`, () => {
    test("prints a small file exactly, through a symlink that stays inside too", () => {
      assert.deepEqual(outcome("all.bin"), { kind: "read", bytes: binary });
      assert.deepEqual(outcome("alias"), { kind: "read", bytes: binary });
      assert.deepEqual(outcome("empty"), { kind: "read", bytes: new Uint8Array() });
    });

    test("refuses paths that resolve outside, even to nothing, before anything else", () => {
      for (const path of ["etc/hostname", "etc/no-such-file", "dangling-out"]) {
        assert.throws(
          () => outcome(path),
          (error) => SandportError.hasCode(error, "INVALID_REQUEST") && error.details.path === path,
          path,
        );
      }
    });

    test("a missing file is NOT_FOUND with the caller's details; a directory is left to the download", () => {
      assert.throws(
        () => outcome("missing"),
        (error) => SandportError.hasCode(error, "NOT_FOUND") && error.details.path === "/w/missing",
      );
      assert.deepEqual(outcome("dir"), { kind: "download" });
    });

    test("a file above inlineBytes reports its size and prints nothing of it", () => {
      const result = run("big", 4096);
      assert.equal(result.stdout, "sandport-read large 5000\n");
      assert.deepEqual(outcome("big", 4999), { kind: "large", size: 5000 });
      assert.equal((outcome("big", 5000) as { bytes: Uint8Array }).bytes.byteLength, 5000);
    });
  });
}

describe("readCommandOutcome", () => {
  const script = (stdout: string, exitCode: number | null = 0) =>
    readCommandOutcome("f", { exitCode, stdout, stderr: "" }, "acme", missing);

  test("finds its status line after other output (providers that merge stderr into stdout)", () => {
    assert.deepEqual(script("note: something\nsandport-read inline 3\nAAEC\nsandport-read end\n"), {
      kind: "read",
      bytes: Uint8Array.of(0, 1, 2),
    });
  });

  test("output cut before the end line leaves the file to the download", () => {
    assert.deepEqual(script("sandport-read inline 3000\nAAEC", null), { kind: "download" });
  });

  test("a script that printed no status is UNEXPECTED", () => {
    assert.throws(
      () => script("realpath: not found\n", 127),
      (error) => SandportError.hasCode(error, "UNEXPECTED"),
    );
  });

  test("the output cap fits the base64 of inlineBytes with its lines and status", () => {
    const bytes = 100_000;
    const encoded = Buffer.alloc(bytes).toString("base64");
    const lines = Math.ceil(encoded.length / 76);
    assert.ok(guardedReadOutputBytes(bytes) >= encoded.length + lines + "sandport-read inline 100000\n".length + 20);
  });
});
