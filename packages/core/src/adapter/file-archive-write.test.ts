import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { SandportError } from "../errors/sandport-error.js";
import { encodeFileArchive } from "../shell/file-archive.js";
import { FakeContext } from "./fake-context.js";
import { archiveBeatsFileRequests, sendsAsArchive } from "./file-archive-write.js";
import { guardedFiles } from "./guarded-files.js";
import type { WorkspaceRunner } from "./guarded-path.js";

const scratch = mkdtempSync(join(tmpdir(), "sandport-archive-write-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

const bytes = (content: string | Uint8Array) =>
  typeof content === "string" ? new TextEncoder().encode(content) : content;

/** A guard runner that finds every path inside (`/work/<path>`) except those under `link`; records each script. */
function guard(scripts: string[]): WorkspaceRunner<FakeContext, { id: string }> {
  return async (_context, script) => {
    scripts.push(script);
    const targets = script.replace(/^realpath -m -- \. /, "").split(" ");
    const resolved = targets.map((target) => (target.startsWith("link") ? "/etc" : `/work/${target}`));
    return { exitCode: 0, stdout: ["/work", ...resolved].join("\n"), stderr: "" };
  };
}

/** Files written by a recipe whose archive runs for real with /bin/sh, the fake's workspace mapped to `local`. */
function recipe(local: string, calls: { perFile: string[][]; archives: number; scripts: string[] }) {
  return guardedFiles<FakeContext, { id: string }>({
    inWorkspace: guard(calls.scripts),
    writtenMode: 0o644,
    write: async (_context, { files }) => {
      calls.perFile.push(files.map((file) => file.path));
    },
    read: async () => new Uint8Array(0),
    archive: {
      use: (files, bytes) => files >= 3 && bytes <= 64 * 1024,
      run: async (_context, script, stdin) => {
        calls.archives += 1;
        const run = spawnSync("/bin/sh", ["-c", script.replace("w=/work\n", `w=${local}\n`)], { input: stdin });
        return { exitCode: run.status, stdout: run.stdout.toString(), stderr: run.stderr.toString() };
      },
    },
  });
}

describe("guardedFiles with an archive", () => {
  test("a batch use picks goes as one archive, with its modes and no chmod after; another goes per file", async () => {
    const context = new FakeContext();
    context.add("a");
    const local = join(scratch, "one");
    const calls = { perFile: [] as string[][], archives: 0, scripts: [] as string[] };
    const { writeFiles } = recipe(local, calls);
    await writeFiles(context, { id: "a" }, [
      { path: "x.sh", content: "#!/bin/sh\n", mode: 0o755 },
      { path: "d/y.bin", content: Uint8Array.from([0, 255, 10]) },
      { path: "/work/d/e/z.txt", content: "z", mode: 0o600 },
    ]);
    assert.equal(calls.archives, 1);
    assert.deepEqual(calls.perFile, []);
    assert.equal(calls.scripts.length, 1, "the guard ran, and no chmod");
    assert.match(calls.scripts[0] as string, /^realpath -m -- \. x\.sh d\/y\.bin d\/e\/z\.txt$/);
    assert.equal(statSync(join(local, "x.sh")).mode & 0o777, 0o755);
    assert.equal(statSync(join(local, "d/e/z.txt")).mode & 0o777, 0o600);
    assert.deepEqual([...readFileSync(join(local, "d/y.bin"))], [0, 255, 10]);

    await writeFiles(context, { id: "a" }, [
      { path: "p.txt", content: "p" },
      { path: "q.sh", content: "q", mode: 0o755 },
    ]);
    assert.equal(calls.archives, 1);
    assert.deepEqual(calls.perFile, [["p.txt", "q.sh"]]);
    assert.match(calls.scripts.at(-1) as string, /^chmod 0755 -- q\.sh$/);
  });

  test("a batch use refuses (too large) goes per file; an escaping or invalid batch is refused before any run", async () => {
    const context = new FakeContext();
    context.add("a");
    const calls = { perFile: [] as string[][], archives: 0, scripts: [] as string[] };
    const { writeFiles } = recipe(join(scratch, "two"), calls);
    const big = new Uint8Array(30 * 1024);
    await writeFiles(context, { id: "a" }, [
      { path: "1", content: big },
      { path: "2", content: big },
      { path: "3", content: big },
    ]);
    assert.deepEqual([calls.archives, calls.perFile.length], [0, 1]);
    for (const files of [
      [
        { path: "a", content: "" },
        { path: "link/out", content: "" },
        { path: "b", content: "" },
      ],
      [
        { path: "a", content: "" },
        { path: "../out", content: "" },
        { path: "b", content: "" },
      ],
      [
        { path: "a", content: "" },
        { path: "a", content: "" },
        { path: "b", content: "" },
      ],
    ]) {
      const refused = await writeFiles(context, { id: "a" }, files).catch((error: unknown) => error);
      assert.ok(SandportError.hasCode(refused, "INVALID_REQUEST"), String(refused));
    }
    assert.equal(calls.archives, 0);
  });

  test("a directory in the way is INVALID_REQUEST; another failing script is UNEXPECTED with its message", async () => {
    const context = new FakeContext();
    context.add("a");
    const local = join(scratch, "three");
    const calls = { perFile: [] as string[][], archives: 0, scripts: [] as string[] };
    const { writeFiles } = recipe(local, calls);
    await writeFiles(context, { id: "a" }, [
      { path: "taken/x", content: "" },
      { path: "b", content: "" },
      { path: "c", content: "" },
    ]);
    const failed = await writeFiles(context, { id: "a" }, [
      { path: "taken", content: "" },
      { path: "b", content: "" },
      { path: "c", content: "" },
    ]).catch((error: unknown) => error);
    assert.ok(SandportError.hasCode(failed, "INVALID_REQUEST"));
    assert.equal((failed as Error).message, "taken is a directory: cannot write a file there");
    const blocked = await writeFiles(context, { id: "a" }, [
      { path: "taken/x/under-a-file", content: "" },
      { path: "b", content: "" },
      { path: "c", content: "" },
    ]).catch((error: unknown) => error);
    assert.ok(SandportError.hasCode(blocked, "UNEXPECTED"));
    assert.match(
      (blocked as Error).message,
      /^fake could not write the files in sandbox a: .*sandport files: cannot make the directory of taken\/x\/under-a-file/s,
    );
  });

  test("sendsAsArchive asks use with the count and a bound of the archive that holds", () => {
    const asked: [number, number][] = [];
    const rule = {
      use: (files: number, bytes: number) => {
        asked.push([files, bytes]);
        return true;
      },
    };
    const files = [
      { path: "f0", content: "x".repeat(1000) },
      { path: "ü/é", content: new Uint8Array(5000), mode: 0o755 },
    ];
    assert.equal(sendsAsArchive(files, rule, undefined), true);
    const [count, bound] = asked[0] as [number, number];
    assert.equal(count, 2);
    const exact = encodeFileArchive(
      files.map((file) => ({ path: file.path, mode: 0o644, content: bytes(file.content) })),
    );
    assert.ok(bound >= exact.byteLength, `${bound} bounds ${exact.byteLength}`);
    assert.ok(bound < exact.byteLength + 2048, "and stays close");
    assert.equal(sendsAsArchive([], rule, undefined), false);
    assert.equal(sendsAsArchive("nope" as never, rule, undefined), false);
    assert.equal(asked.length, 1);
  });

  test("archiveBeatsFileRequests: 3 files or more at any size, 2 only while their archive fits inline, never 1", () => {
    const use = archiveBeatsFileRequests(1024);
    assert.deepEqual(
      [use(1, 10), use(2, 1024), use(2, 1025), use(3, 10_000_000), use(20, 0)],
      [false, true, false, true, true],
    );
  });
});
