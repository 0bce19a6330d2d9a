// The shell family kit: strings for providers whose exec takes a command string.
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { SandportError } from "../errors/sandport-error.js";
import { asyncScript, parseExitRecord, parseStartLine, parseStartRecord, sessionFiles } from "./async-script.js";
import { chmodScript, modesToSet } from "./chmod.js";
import { assertCommandFits } from "./command-size.js";
import { planStdin } from "./stdin.js";
import { checkSymlinkGuard, symlinkGuardScript } from "./symlink-guard.js";

const run = (script: string, cwd: string) => spawnSync("bash", ["-c", script], { cwd, encoding: "utf8" });

describe("shell kit", () => {
  test("planStdin embeds small stdin and stages large stdin; both reach the command byte for byte", () => {
    const cwd = mkdtempSync(join(tmpdir(), "sandport-stdin-"));
    try {
      const small = planStdin("od -An -tx1 | tr -d ' \\n'", Uint8Array.of(0, 255, 10), {
        cwd,
        scratchDirectory: `${cwd}/.scratch`,
        name: "in",
      });
      assert.equal(small.upload, undefined);
      assert.equal(run(small.command, cwd).stdout, "00ff0a");
      const large = planStdin("wc -c", "x".repeat(70_000), { cwd, scratchDirectory: `${cwd}/scratch`, name: "in" });
      assert.ok(large.upload);
      execFileSync("mkdir", ["-p", `${cwd}/scratch`]);
      writeFileSync(large.upload.path, large.upload.content);
      assert.equal(run(large.command, cwd).stdout.trim(), "70000");
      assert.throws(() => readFileSync(large.upload?.path ?? ""), /ENOENT/, "the command removed the staged file");
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  test("the async script claims a session once and records the exit", () => {
    const cwd = mkdtempSync(join(tmpdir(), "sandport-async-"));
    try {
      const files = sessionFiles(`${cwd}/state`, "s1");
      const first = run(
        asyncScript({
          command: "echo out; exit 3",
          cwd,
          timeoutMs: 5_000,
          maxOutputBytes: 100,
          files,
          commandId: "c1",
        }),
        cwd,
      );
      assert.deepEqual(parseStartLine(first.stdout.split("\n")[0] ?? ""), { commandId: "c1", claimed: true });
      assert.equal(first.status, 3);
      const again = run(
        asyncScript({ command: "echo twice", cwd, timeoutMs: 5_000, maxOutputBytes: 100, files, commandId: "c2" }),
        cwd,
      );
      assert.deepEqual(parseStartLine(again.stdout.split("\n")[0] ?? ""), { commandId: "c1", claimed: false });
      assert.equal(readFileSync(files.stdout, "utf8"), "out\n", "the second start ran nothing");
      const exit = parseExitRecord(readFileSync(files.exit, "utf8"));
      assert.deepEqual([exit?.exitCode, exit?.timedOut, exit?.capped], [3, false, false]);
      const record = parseStartRecord(readFileSync(files.record, "utf8"));
      assert.deepEqual([record?.commandId, record?.maxOutputBytes], ["c1", 100]);
      assert.equal(parseExitRecord("garbage"), undefined);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  test("the async script stops a command at its output cap with nobody reading, and records that", () => {
    const cwd = mkdtempSync(join(tmpdir(), "sandport-async-cap-"));
    try {
      const files = sessionFiles(`${cwd}/state`, "s1");
      const script = asyncScript({
        command: "yes",
        cwd,
        timeoutMs: 20_000,
        maxOutputBytes: 4096,
        files,
        commandId: "c1",
      });
      const started = performance.now();
      run(script, cwd);
      const exit = parseExitRecord(readFileSync(files.exit, "utf8"));
      assert.deepEqual([exit?.capped, exit?.timedOut], [true, false]);
      assert.ok((exit?.durationMs ?? Number.POSITIVE_INFINITY) < 10_000, `ran ${exit?.durationMs} ms`);
      assert.ok(performance.now() - started < 10_000);
      assert.equal(readFileSync(files.stdout, "utf8").length, 4097, "kept one byte past the cap");
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  test("the symlink guard refuses a path that leaves the workspace", () => {
    const cwd = mkdtempSync(join(tmpdir(), "sandport-guard-"));
    try {
      execFileSync("ln", ["-s", "/etc", `${cwd}/escape`]);
      const inside = [{ relative: "a/b.txt", followFinal: true }];
      const result = (paths: typeof inside) => {
        const output = run(symlinkGuardScript(paths), cwd);
        return { exitCode: output.status, stdout: output.stdout, stderr: output.stderr };
      };
      checkSymlinkGuard(inside, result(inside), "acme");
      const outside = [{ relative: "escape/passwd", followFinal: true }];
      assert.throws(
        () => checkSymlinkGuard(outside, result(outside), "acme"),
        (error) => SandportError.hasCode(error, "INVALID_REQUEST"),
      );
      const statOnly = [{ relative: "escape", followFinal: false }];
      checkSymlinkGuard(statOnly, result(statOnly), "acme");
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  test("chmodScript and the command size limit", () => {
    assert.equal(chmodScript(new Map([[0o755, ["a", "b c"]]])), "chmod 0755 -- a 'b c'");
    const written = new Uint8Array();
    const modes = modesToSet(
      [
        { path: "plain", content: written, mode: 0o644 },
        { path: "run.sh", content: written, mode: 0o755 },
        { path: "bin/tool", content: written, mode: 0o755 },
        { path: "secret", content: written, mode: 0o600 },
      ],
      0o644,
    );
    assert.deepEqual(
      [...modes],
      [
        [0o755, ["run.sh", "bin/tool"]],
        [0o600, ["secret"]],
      ],
    );
    assert.throws(
      () => assertCommandFits("x".repeat(200_000), "acme"),
      (error) => SandportError.hasCode(error, "INVALID_REQUEST"),
    );
  });
});
