import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { SandportError } from "../errors/sandport-error.js";
import { FakeContext } from "./fake-context.js";
import { guardPaths, onGuardedFiles, onGuardedPath, type WorkspaceRunner } from "./guarded-path.js";

/**
 * A workspace runner that answers the guard as `realpath -m` would with `link` a symlink to `/etc`,
 * and `chmod` with `chmodExit`, recording each script.
 */
function fakeGuard(scripts: string[], chmodExit = 0): WorkspaceRunner<FakeContext, { id: string }> {
  return async (_context, script) => {
    scripts.push(script);
    if (script.startsWith("chmod")) return { exitCode: chmodExit, stdout: "", stderr: "chmod: denied" };
    const targets = script.replace(/^realpath -m -- \. /, "").split(" ");
    const resolved = targets.map((target) => (target.startsWith("link") ? "/etc" : `/work/${target}`));
    return { exitCode: 0, stdout: ["/work", ...resolved].join("\n"), stderr: "" };
  };
}

const read = { operation: "readFile", allowRoot: false, followFinal: true } as const;

describe("onGuardedPath", () => {
  test("validates the path before any request; the work gets the sandbox, its instance and both paths", async () => {
    const context = new FakeContext();
    context.add("a");
    const scripts: string[] = [];
    const bad = await onGuardedPath(
      context,
      { id: "a" },
      undefined,
      { ...read, path: "../x" },
      fakeGuard(scripts),
      () => Promise.resolve("worked"),
    ).catch((error: unknown) => error);
    assert.ok(SandportError.hasCode(bad, "INVALID_REQUEST"));
    assert.equal(context.describes + context.connects, 0);
    const seen = await onGuardedPath(
      context,
      { id: "a" },
      undefined,
      { ...read, path: "d/f" },
      fakeGuard(scripts),
      (target) => Promise.resolve([target.sandboxId, target.instance, target.relative, target.absolute]),
    );
    assert.deepEqual(seen, ["a", { id: "a" }, "d/f", "/work/d/f"]);
    assert.deepEqual(scripts, ["realpath -m -- . d/f"]);
  });

  test("a path escaping through a symlink is INVALID_REQUEST and the work never runs", async () => {
    const context = new FakeContext();
    context.add("a");
    let worked = false;
    const escaped = await onGuardedPath(
      context,
      { id: "a" },
      undefined,
      { ...read, path: "link" },
      fakeGuard([]),
      async () => {
        worked = true;
      },
    ).catch((error: unknown) => error);
    assert.ok(SandportError.hasCode(escaped, "INVALID_REQUEST"));
    assert.equal(worked, false);
  });

  test("no guard in a pristine sandbox; connect: false checks ownership without connecting", async () => {
    const context = new FakeContext();
    context.add("a");
    context.add("f", "someone-else");
    context.known.markPristine("a");
    const scripts: string[] = [];
    const rule = { ...read, path: "link", connect: false };
    assert.equal(
      await onGuardedPath(context, { id: "a" }, undefined, rule, fakeGuard(scripts), async () => "read"),
      "read",
    );
    assert.deepEqual(scripts, []);
    assert.equal(context.connects, 0);
    const foreign = await onGuardedPath(
      context,
      { id: "f" },
      undefined,
      rule,
      fakeGuard(scripts),
      async () => "read",
    ).catch((error: unknown) => error);
    assert.ok(SandportError.hasCode(foreign, "FOREIGN_SANDBOX"));
  });
});

describe("guardPaths", () => {
  test("one script for every path; the first escaping path is refused", async () => {
    const context = new FakeContext();
    const scripts: string[] = [];
    const site = {
      sandboxId: "a",
      instance: { id: "a" },
      call: { timeoutMs: 1_000, remainingMs: () => 1_000, signal: new AbortController().signal },
    };
    const paths = [
      { relative: "ok", followFinal: true },
      { relative: "link", followFinal: true },
    ];
    await assert.rejects(guardPaths(context, site, paths, fakeGuard(scripts)), /"link" resolves outside the workspace/);
    assert.deepEqual(scripts, ["realpath -m -- . ok link"]);
  });
});

describe("onGuardedFiles", () => {
  const file = (path: string, mode?: number) => ({ path, content: "x", ...(mode === undefined ? {} : { mode }) });

  test("every path validated first; an empty list makes no request; one guard for all, the write, one chmod", async () => {
    const context = new FakeContext();
    context.add("a");
    const scripts: string[] = [];
    const written: string[][] = [];
    const write = async ({ files }: { files: readonly { path: string }[] }) => {
      written.push(files.map((entry) => entry.path));
    };
    const rule = { writtenMode: 0o644 };
    const bad = await onGuardedFiles(
      context,
      { id: "a" },
      [file("ok"), file("../x")],
      undefined,
      rule,
      fakeGuard(scripts),
      write,
    ).catch((error: unknown) => error);
    assert.ok(SandportError.hasCode(bad, "INVALID_REQUEST"));
    await onGuardedFiles(context, { id: "a" }, [], undefined, rule, fakeGuard(scripts), write);
    assert.equal(context.describes + context.connects, 0);
    await onGuardedFiles(
      context,
      { id: "a" },
      [file("a.sh", 0o755), file("b")],
      undefined,
      rule,
      fakeGuard(scripts),
      write,
    );
    assert.deepEqual(written, [["a.sh", "b"]]);
    assert.equal(scripts.length, 2);
    assert.equal(scripts[0], "realpath -m -- . a.sh b");
    assert.match(scripts[1] as string, /^chmod 0755 -- .*a\.sh/);
  });

  test("an escaping path writes nothing; a failed chmod is UNEXPECTED; no writtenMode, no chmod", async () => {
    const context = new FakeContext();
    context.add("a");
    let writes = 0;
    const write = async () => {
      writes++;
    };
    const escaped = onGuardedFiles(context, { id: "a" }, [file("link")], undefined, {}, fakeGuard([]), write);
    await assert.rejects(escaped, (error) => SandportError.hasCode(error, "INVALID_REQUEST"));
    assert.equal(writes, 0);
    const failing = onGuardedFiles(
      context,
      { id: "a" },
      [file("x", 0o700)],
      undefined,
      { writtenMode: 0o644 },
      fakeGuard([], 1),
      write,
    );
    await assert.rejects(
      failing,
      (error) => SandportError.hasCode(error, "UNEXPECTED") && /denied/.test(String(error)),
    );
    const scripts: string[] = [];
    await onGuardedFiles(
      context,
      { id: "a" },
      [file("x", 0o700)],
      undefined,
      { connect: false },
      fakeGuard(scripts),
      write,
    );
    assert.deepEqual(scripts, ["realpath -m -- . x"]);
    assert.equal(context.connects, 1, "only the connected writes connected");
  });
});
