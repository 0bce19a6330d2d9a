import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { SandportError } from "../errors/sandport-error.js";
import type { FileInfo } from "../port/file-info.js";
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
