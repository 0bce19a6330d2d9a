import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { SandportError } from "../errors/sandport-error.js";
import type { FileInfo } from "../port/file-info.js";
import { guardedReadOutputBytes } from "../shell/guarded-read.js";
import { FakeContext } from "./fake-context.js";
import { guardedFileOps, guardedFiles } from "./guarded-files.js";
import type { GuardedTarget, WorkspaceRunner } from "./guarded-path.js";

/** A workspace runner answering the guard as `realpath -m` would with `link` a symlink to `/etc`; records each script. */
function fakeGuard(scripts: string[]): WorkspaceRunner<FakeContext, { id: string }> {
  return async (_context, script) => {
    scripts.push(script);
    if (script.startsWith("chmod")) return { exitCode: 0, stdout: "", stderr: "" };
    const targets = script.replace(/^realpath -m -- \. /, "").split(" ");
    const resolved = targets.map((target) => (target.startsWith("link") ? "/etc" : `/work/${target}`));
    return { exitCode: 0, stdout: ["/work", ...resolved].join("\n"), stderr: "" };
  };
}

const info = (target: GuardedTarget<unknown>): FileInfo => ({
  name: target.relative,
  path: target.relative,
  kind: "file",
  size: 0,
});

describe("guardedFiles", () => {
  test("writeFiles guards, writes and chmods past writtenMode; readFile refuses the root and reads the guarded path", async () => {
    const context = new FakeContext();
    context.add("a");
    const scripts: string[] = [];
    const written: string[] = [];
    const { writeFiles, readFile } = guardedFiles<FakeContext, { id: string }>({
      inWorkspace: fakeGuard(scripts),
      writtenMode: 0o644,
      write: async (_context, { files }) => {
        written.push(...files.map((file) => file.path));
      },
      read: async (_context, { absolute }) => new TextEncoder().encode(absolute),
    });
    await writeFiles(context, { id: "a" }, [{ path: "x.sh", content: "x", mode: 0o755 }]);
    assert.deepEqual(written, ["x.sh"]);
    assert.deepEqual(scripts.length, 2);
    assert.match(scripts[1] as string, /^chmod 0755/);
    assert.equal(new TextDecoder().decode(await readFile(context, { id: "a" }, "d/f")), "/work/d/f");
    const root = await readFile(context, { id: "a" }, "").catch((error: unknown) => error);
    assert.ok(SandportError.hasCode(root, "INVALID_REQUEST"));
    const escaped = await readFile(context, { id: "a" }, "link").catch((error: unknown) => error);
    assert.ok(SandportError.hasCode(escaped, "INVALID_REQUEST"));
  });

  test("connect: false checks ownership without connecting", async () => {
    const context = new FakeContext();
    context.add("a");
    const { readFile } = guardedFiles<FakeContext, { id: string }>({
      inWorkspace: fakeGuard([]),
      connect: false,
      write: async () => {},
      read: async (_context, target) => new TextEncoder().encode(`${target.instance}`),
    });
    assert.equal(new TextDecoder().decode(await readFile(context, { id: "a" }, "f")), "undefined");
    assert.equal(context.connects, 0);
  });

  test("readFile validates maxBytes before any request and refuses a larger file with OUTPUT_LIMIT", async () => {
    const context = new FakeContext();
    context.add("a");
    let reads = 0;
    const caps: number[] = [];
    const { readFile } = guardedFiles<FakeContext, { id: string }>({
      inWorkspace: fakeGuard([]),
      write: async () => {},
      read: async (_context, { maxBytes }) => {
        reads += 1;
        caps.push(maxBytes);
        return new Uint8Array(10);
      },
    });
    for (const maxBytes of [-1, 1.5, Number.NaN, 2 ** 31, "10"]) {
      const refused = await readFile(context, { id: "a" }, "f", { maxBytes } as never).catch((error: unknown) => error);
      assert.ok(SandportError.hasCode(refused, "INVALID_REQUEST"), `maxBytes ${String(maxBytes)}`);
    }
    const typo = await readFile(context, { id: "a" }, "f", { maxByte: 5 } as never).catch((error: unknown) => error);
    assert.ok(SandportError.hasCode(typo, "INVALID_REQUEST"));
    assert.equal(reads, 0, "nothing was read for a refused option");
    assert.equal((await readFile(context, { id: "a" }, "f", { maxBytes: 10 })).byteLength, 10);
    const large = await readFile(context, { id: "a" }, "f", { maxBytes: 9 }).catch((error: unknown) => error);
    assert.ok(SandportError.hasCode(large, "OUTPUT_LIMIT"));
    assert.deepEqual(large.details, { path: "/work/f", size: 10, limit: 9 });
    assert.match(large.message, /10 bytes.*maxBytes \(9\)/);
    await readFile(context, { id: "a" }, "f");
    assert.deepEqual(caps, [10, 9, 64 * 1024 * 1024], "the recipe is told the cap, the default when none is given");
  });
});

describe("guardedFiles with commandRead", () => {
  test("a read is one command: small files printed, larger ones downloaded after it, too large ones refused on its size", async () => {
    const workspace = mkdtempSync(join(tmpdir(), "sandport-guarded-read-"));
    try {
      writeFileSync(join(workspace, "small"), Uint8Array.of(0, 1, 2, 255));
      writeFileSync(join(workspace, "large"), "x".repeat(100));
      symlinkSync("/etc", join(workspace, "link"));
      const context = new FakeContext();
      context.add("a");
      const scripts: { script: string; maxOutputBytes: number | undefined }[] = [];
      const downloads: string[] = [];
      const { readFile } = guardedFiles<FakeContext, { id: string }>({
        inWorkspace: async (_context, script, _site, maxOutputBytes) => {
          scripts.push({ script, maxOutputBytes });
          const output = spawnSync("sh", ["-c", script], { cwd: workspace, encoding: "utf8" });
          return { exitCode: output.status, stdout: output.stdout, stderr: output.stderr };
        },
        commandRead: { inlineBytes: 50 },
        write: async () => {},
        read: async (_context, { relative }) => {
          downloads.push(relative);
          return new Uint8Array(readFileSync(join(workspace, relative)));
        },
      });
      assert.deepEqual(await readFile(context, { id: "a" }, "small"), Uint8Array.of(0, 1, 2, 255));
      assert.deepEqual([scripts.length, downloads], [1, []], "one command, no download");
      assert.equal(scripts[0]?.maxOutputBytes, guardedReadOutputBytes(50));
      assert.equal((await readFile(context, { id: "a" }, "large")).byteLength, 100);
      assert.deepEqual([scripts.length, downloads], [2, ["large"]], "the command, then the download");
      const refused = await readFile(context, { id: "a" }, "large", { maxBytes: 99 }).catch((error: unknown) => error);
      assert.ok(SandportError.hasCode(refused, "OUTPUT_LIMIT"));
      assert.deepEqual(refused.details, { path: "/work/large", size: 100, limit: 99 });
      assert.deepEqual([scripts.length, downloads], [3, ["large"]], "refused on the size the command printed");
      const capped = await readFile(context, { id: "a" }, "small", { maxBytes: 3 }).catch((error: unknown) => error);
      assert.ok(SandportError.hasCode(capped, "OUTPUT_LIMIT"));
      assert.deepEqual(capped.details, { path: "/work/small", size: 4, limit: 3 });
      assert.equal(scripts[3]?.maxOutputBytes, guardedReadOutputBytes(3), "a maxBytes below inlineBytes prints less");
      for (const [path, code] of [
        ["link/hostname", "INVALID_REQUEST"],
        ["missing", "NOT_FOUND"],
      ] as const) {
        const error = await readFile(context, { id: "a" }, path).catch((caught: unknown) => caught);
        assert.ok(SandportError.hasCode(error, code), path);
      }
      assert.deepEqual([scripts.length, downloads], [6, ["large"]]);
      // Where no command has run, nothing can have made a symlink: the download alone.
      context.known.markPristine("a");
      assert.equal((await readFile(context, { id: "a" }, "small")).byteLength, 4);
      assert.deepEqual([scripts.length, downloads], [6, ["large", "small"]]);
    } finally {
      rmSync(workspace, { recursive: true, force: true });
    }
  });
});

describe("guardedFileOps", () => {
  test("each operation has the port's rule: only remove refuses the root; stat and remove keep a final symlink", async () => {
    const context = new FakeContext();
    context.add("a");
    const scripts: string[] = [];
    const seen: string[] = [];
    const ops = guardedFileOps<FakeContext, { id: string }>({
      inWorkspace: fakeGuard(scripts),
      listDir: async (_context, target) => [info(target)],
      stat: async (_context, target) => info(target),
      mkdir: async (_context, { absolute }) => {
        seen.push(`mkdir ${absolute}`);
      },
      remove: async (_context, { absolute }) => {
        seen.push(`remove ${absolute}`);
      },
    });
    assert.deepEqual(await ops.listDir(context, { id: "a" }, ""), [{ name: "", path: "", kind: "file", size: 0 }]);
    assert.equal((await ops.stat(context, { id: "a" }, "")).path, "");
    await ops.mkdir(context, { id: "a" }, "");
    const root = await ops.remove(context, { id: "a" }, "").catch((error: unknown) => error);
    assert.ok(SandportError.hasCode(root, "INVALID_REQUEST"));
    // A final symlink leaving the workspace: followed (refused) by listDir and mkdir, kept as itself by stat and remove.
    for (const refused of [ops.listDir(context, { id: "a" }, "link"), ops.mkdir(context, { id: "a" }, "link")]) {
      assert.ok(SandportError.hasCode(await refused.catch((error: unknown) => error), "INVALID_REQUEST"));
    }
    assert.equal((await ops.stat(context, { id: "a" }, "link")).path, "link");
    await ops.remove(context, { id: "a" }, "link");
    assert.deepEqual(seen, ["mkdir /work", "remove /work/link"]);
  });

  test("a workspace root not made yet: listDir lists nothing, stat makes it and asks again; other paths stay NOT_FOUND", async () => {
    const context = new FakeContext();
    context.add("a");
    let made = false;
    const seen: string[] = [];
    // The SDK's own error, as a recipe may throw it: the adapter's mapper reads it as NOT_FOUND.
    const missing = (path: string) => Object.assign(new Error(`${path} is missing`), { status: 404 });
    const ops = guardedFileOps<FakeContext, { id: string }>({
      inWorkspace: fakeGuard([]),
      listDir: async (_context, { relative, absolute }) => {
        seen.push(`listDir ${absolute}`);
        if (relative !== "" || !made) throw missing(absolute);
        return [];
      },
      stat: async (_context, target) => {
        seen.push(`stat ${target.absolute}`);
        if (target.relative !== "" || !made) throw missing(target.absolute);
        return { ...info(target), kind: "directory" };
      },
      mkdir: async (_context, { absolute }) => {
        seen.push(`mkdir ${absolute}`);
        made = true;
      },
      remove: async () => {},
    });
    assert.deepEqual(await ops.listDir(context, { id: "a" }, ""), []);
    assert.ok(
      SandportError.hasCode(await ops.listDir(context, { id: "a" }, "sub").catch((e: unknown) => e), "NOT_FOUND"),
    );
    assert.ok(SandportError.hasCode(await ops.stat(context, { id: "a" }, "sub").catch((e: unknown) => e), "NOT_FOUND"));
    assert.equal((await ops.stat(context, { id: "a" }, "")).kind, "directory");
    assert.deepEqual(seen, [
      "listDir /work",
      "listDir /work/sub",
      "stat /work/sub",
      "stat /work",
      "mkdir /work",
      "stat /work",
    ]);
  });
});
