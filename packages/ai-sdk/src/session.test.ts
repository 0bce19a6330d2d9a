// Every member of the session against a real LocalRuntime (namespaces where bubblewrap works).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { expectCode } from "@sandport/testkit/assertions";
import { type LocalTestSandbox, localTestSandbox, namespacesSkipReason, withoutMethods } from "@sandport/testkit/fakes";
import { createSandboxSession } from "./session.js";

/** Why the tests that assert what only a namespaced sandbox shows (its `/workspace`, its loopback) skip here, if they do. */
const namespacesOnly = await namespacesSkipReason();

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
async function drain(stream: ReadableStream<Uint8Array>): Promise<string> {
  let out = "";
  for await (const chunk of stream) out += text(chunk);
  return out;
}

/** Aborting a running command's signal makes `wait()` reject with the abort reason. */
async function abortRejectsWait(session: ReturnType<typeof createSandboxSession>): Promise<void> {
  const controller = new AbortController();
  const aborted = await session.spawn({ command: "sleep 30", abortSignal: controller.signal });
  const reason = new Error("user gave up");
  controller.abort(reason);
  await assert.rejects(
    async () => await aborted.wait(),
    (error: unknown) => error === reason,
  );
}

describe("createSandboxSession over LocalRuntime", () => {
  let local: LocalTestSandbox;
  let session: ReturnType<typeof createSandboxSession>;

  before(async () => {
    local = await localTestSandbox("ai-sdk-session");
    await local.runtime.writeFiles(local.handle, [{ path: "app/.keep", content: "" }]);
    session = createSandboxSession({ runtime: local.runtime, handle: local.handle, workingDirectory: "app" });
  });
  after(() => local.cleanup());

  test("relative paths and commands share one base directory; cd inside a command does not move it", {
    skip: namespacesOnly,
  }, async () => {
    await session.writeTextFile({ path: "notes/a.txt", content: "alpha\n" });
    const first = await session.run({ command: "cd / && pwd" });
    const second = await session.run({ command: "pwd; cat notes/a.txt" });
    assert.equal(first.stdout, "/\n");
    assert.equal(second.stdout, `${local.runtime.workspaceRoot}/app\nalpha\n`);
    assert.equal(await session.readTextFile({ path: `${local.runtime.workspaceRoot}/app/notes/a.txt` }), "alpha\n");
    assert.match(session.description, /\/app/);
  });

  test("run: working directory, environment, exit code and both streams", { skip: namespacesOnly }, async () => {
    const result = await session.run({
      command: 'pwd; echo "$GREETING"; echo oops >&2; exit 3',
      workingDirectory: "notes",
      env: { GREETING: "hi" },
    });
    assert.deepEqual(result, {
      exitCode: 3,
      stdout: `${local.runtime.workspaceRoot}/app/notes\nhi\n`,
      stderr: "oops\n",
    });
  });

  test("binary, text and stream writes and reads round-trip exactly; line ranges are 1-based inclusive", async () => {
    const bytes = Uint8Array.from({ length: 256 }, (_, index) => index);
    await session.writeBinaryFile({ path: "bin/all.bin", content: bytes });
    assert.deepEqual(await session.readBinaryFile({ path: "bin/all.bin" }), bytes);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode("one\ntwo\n"));
        controller.enqueue(new TextEncoder().encode("three\nfour"));
        controller.close();
      },
    });
    await session.writeFile({ path: "lines.txt", content: stream });
    assert.equal(await drain((await session.readFile({ path: "lines.txt" }))!), "one\ntwo\nthree\nfour");
    assert.equal(await session.readTextFile({ path: "lines.txt", startLine: 2, endLine: 3 }), "two\nthree");
    assert.equal(await session.readTextFile({ path: "lines.txt", startLine: 3, endLine: 99 }), "three\nfour");
    await session.writeTextFile({ path: "latin.txt", content: "café", encoding: "latin1" });
    assert.deepEqual([...(await session.readBinaryFile({ path: "latin.txt" }))!].slice(-1), [0xe9]);
    assert.equal(await session.readTextFile({ path: "latin.txt", encoding: "latin1" }), "café");
    await expectCode(
      () => session.writeTextFile({ path: "x.txt", content: "x", encoding: "klingon" }),
      "INVALID_REQUEST",
    );
  });

  test("missing files are null, writing over a directory rejects", async () => {
    assert.equal(await session.readFile({ path: "missing" }), null);
    assert.equal(await session.readBinaryFile({ path: "missing" }), null);
    assert.equal(await session.readTextFile({ path: "missing" }), null);
    await session.writeTextFile({ path: "a-directory/inside.txt", content: "x" });
    await expectCode(() => session.writeTextFile({ path: "a-directory", content: "x" }), "INVALID_REQUEST");
  });

  test("stat follows symbolic links; listDirectory reports them as links; both are null when missing", {
    skip: namespacesOnly,
  }, async () => {
    await session.writeTextFile({ path: "dir/file.txt", content: "12345" });
    await session.run({ command: "ln -s file.txt dir/link && ln -s nowhere dir/dangling && ln -s . dir/self" });
    assert.deepEqual(await session.stat({ path: "dir/file.txt" }), { type: "file", size: 5 });
    assert.deepEqual(await session.stat({ path: "dir/link" }), { type: "file", size: 5 });
    assert.equal((await session.stat({ path: "dir/self" }))?.type, "directory");
    assert.equal((await session.stat({ path: "dir" }))?.type, "directory");
    assert.equal(await session.stat({ path: "dir/dangling" }), null);
    assert.equal(await session.stat({ path: "nope" }), null);
    const entries = await session.listDirectory({ path: "dir" });
    assert.deepEqual(
      entries?.sort((a, b) => a.name.localeCompare(b.name)),
      [
        { name: "dangling", type: "symlink" },
        { name: "file.txt", type: "file" },
        { name: "link", type: "symlink" },
        { name: "self", type: "symlink" },
      ],
    );
    assert.equal(await session.listDirectory({ path: "nope" }), null);
    await expectCode(() => session.listDirectory({ path: "dir/file.txt" }), "INVALID_REQUEST");
  });

  test("deleteFile: true once deleted (a link itself, not its target), false when absent, rejects a directory", async () => {
    await session.writeTextFile({ path: "del/target.txt", content: "keep" });
    await session.run({ command: "ln -s target.txt del/link" });
    assert.equal(await session.deleteFile({ path: "del/link" }), true);
    assert.equal(await session.readTextFile({ path: "del/target.txt" }), "keep");
    assert.equal(await session.deleteFile({ path: "del/target.txt" }), true);
    assert.equal(await session.deleteFile({ path: "del/target.txt" }), false);
    await expectCode(() => session.deleteFile({ path: "del" }), "INVALID_REQUEST");
    assert.notEqual(await session.stat({ path: "del" }), null);
  });

  test("spawn without stdin streams stdout and stderr as bytes and waits for the exit code", async () => {
    const process = await session.spawn({ command: "printf 'a\\377b'; echo err >&2; exit 5" });
    assert.equal("stdin" in process, false);
    const [stdout, stderr] = await Promise.all([
      (async () => {
        const chunks: number[] = [];
        for await (const chunk of process.stdout) chunks.push(...chunk);
        return chunks;
      })(),
      drain(process.stderr),
    ]);
    assert.deepEqual(stdout, [0x61, 0xff, 0x62]);
    assert.equal(stderr, "err\n");
    assert.deepEqual(await process.wait(), { exitCode: 5 });
    assert.equal(typeof process.pid === "number" || process.pid === undefined, true);
  });

  test("spawn with stdin: writes reach the command, closing the stream delivers end of file", async () => {
    const process = await session.spawn({ command: "tr a-z A-Z", stdin: true });
    const writer = process.stdin.getWriter();
    await writer.write(new TextEncoder().encode("hello "));
    await writer.write(new TextEncoder().encode("sandbox\n"));
    await writer.close();
    assert.equal(await drain(process.stdout), "HELLO SANDBOX\n");
    assert.deepEqual(await process.wait(), { exitCode: 0 });
  });

  test("kill is idempotent and maps the kill to exit code 137; an abort makes wait reject with its reason", async () => {
    const killed = await session.spawn({ command: "sleep 30" });
    await killed.kill();
    await killed.kill();
    assert.deepEqual(await killed.wait(), { exitCode: 137 });

    await abortRejectsWait(session);
  });

  test("on a runtime without spawn, spawn streams through execStream; kill maps to 137, an abort rejects wait", async () => {
    const streaming = createSandboxSession({ runtime: withoutMethods(local.runtime, ["spawn"]), handle: local.handle });
    const process = await streaming.spawn({ command: "echo one; echo two >&2; exit 4" });
    assert.deepEqual(await Promise.all([drain(process.stdout), drain(process.stderr)]), ["one\n", "two\n"]);
    assert.deepEqual(await process.wait(), { exitCode: 4 });

    const killed = await streaming.spawn({ command: "echo started; sleep 30" });
    const reader = killed.stdout.getReader();
    assert.equal(text((await reader.read()).value!), "started\n");
    await killed.kill();
    await killed.kill();
    assert.deepEqual(await killed.wait(), { exitCode: 137 });
    assert.equal((await reader.read()).done, true);

    await abortRejectsWait(streaming);
    // A working directory may be any directory of the sandbox; a missing one is NOT_FOUND, and nothing runs.
    const inTmp = await streaming.spawn({ command: "pwd", workingDirectory: "/tmp" });
    assert.equal(text((await inTmp.stdout.getReader().read()).value!), "/tmp\n");
    assert.deepEqual(await inTmp.wait(), { exitCode: 0 });
    assert.equal((await session.run({ command: "pwd", workingDirectory: "/tmp" })).stdout, "/tmp\n");
    const missing = await expectCode(
      () => streaming.spawn({ command: "echo ran", workingDirectory: "/tmp/no-such-dir" }),
      "NOT_FOUND",
    );
    assert.equal(missing.details.cwd, "/tmp/no-such-dir");
  });

  test("a command past its timeout reports 124", async () => {
    const quick = createSandboxSession({ runtime: local.runtime, handle: local.handle, commandTimeoutMs: 200 });
    assert.equal((await quick.run({ command: "sleep 5" })).exitCode, 124);
  });

  test("paths outside the workspace are refused by the runtime before anything happens", async () => {
    await expectCode(() => session.readTextFile({ path: "/etc/passwd" }), "INVALID_REQUEST");
    await expectCode(() => session.writeTextFile({ path: "../../escape.txt", content: "x" }), "INVALID_REQUEST");
  });
});
