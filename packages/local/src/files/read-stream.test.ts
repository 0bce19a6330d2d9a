// readFileStream: a file read in chunks as the consumer pulls them, so a huge file the sandbox made
// costs the caller one chunk of memory; its descriptor is closed by an abort, the deadline, a destroy
// or an early break, even between chunks; and it reads the file it opened, never a path's new target.
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, readlinkSync, renameSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { SandportError } from "@sandport/core";
import { diskSupport } from "../disk/disk-support.js";
import type { LocalHandle } from "../handle.js";
import { LocalRuntime } from "../index.js";
import { temporaryDirectory, waitFor } from "../runtime.fixture.js";
import { STREAM_CHUNK_BYTES, STREAM_LIVENESS_MS } from "../sandboxes/file-stream.js";

const root = temporaryDirectory("read-stream");
const outside = temporaryDirectory("read-stream-outside");
after(async () => {
  await root.remove();
  await outside.remove();
});
// `none` needs no bubblewrap; the files code is the same under both isolations.
const runtime = new LocalRuntime({ root: root.path, isolation: "none" });
const SECRET = "host secret, never to be streamed";
writeFileSync(join(outside.path, "secret.txt"), SECRET);

const MiB = 2 ** 20;
const support = diskSupport();
const noDisk = support.ok ? undefined : `no disk bound on this host: ${support.reason}`;

/** Descriptors of this process open on `path`. */
function descriptorsOn(path: string): number {
  let count = 0;
  for (const fd of readdirSync("/proc/self/fd")) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`) === path) count++;
    } catch {
      // Closed while we looked (the listing's own descriptor).
    }
  }
  return count;
}

/** Every chunk of the stream, joined. */
async function collect(chunks: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  for await (const chunk of chunks) parts.push(chunk);
  return Buffer.concat(parts);
}

/** The error the stream rejects with, or a failure if it does not. */
async function refusal(chunks: AsyncIterable<Uint8Array>): Promise<SandportError> {
  try {
    await collect(chunks);
  } catch (error) {
    assert.ok(error instanceof SandportError, `not a SandportError: ${String(error)}`);
    return error;
  }
  return assert.fail("the stream did not reject");
}

function stream(
  handle: LocalHandle,
  path: string,
  options?: Parameters<NonNullable<LocalRuntime["readFileStream"]>>[2],
) {
  assert.equal(typeof runtime.readFileStream, "function", "the local runtime streams files");
  return runtime.readFileStream(handle, path, options);
}

/** A pattern that differs at every offset modulo 251, so a misplaced chunk shows. */
function pattern(length: number): Buffer {
  const bytes = Buffer.alloc(length);
  for (let index = 0; index < length; index++) bytes[index] = (index * 7 + (index >> 11)) % 251;
  return bytes;
}

describe("readFileStream", () => {
  test("a 1 GiB sparse file made in the sandbox streams whole while the caller's RSS grows far less", async () => {
    const handle = await runtime.launch();
    try {
      const made = await runtime.exec(handle, { argv: ["truncate", "-s", "1G", "big.bin"] });
      assert.equal(made.exitCode, 0, made.stderr);
      const before = process.memoryUsage.rss();
      let peak = before;
      let total = 0;
      let chunks = 0;
      for await (const chunk of stream(handle, "big.bin")) {
        assert.ok(chunk.byteLength <= STREAM_CHUNK_BYTES, `a chunk of ${chunk.byteLength} bytes`);
        total += chunk.byteLength;
        // A consumer slower than the disk: a producer running ahead of it would pile chunks up.
        if (++chunks % 16 === 0) {
          peak = Math.max(peak, process.memoryUsage.rss());
          await new Promise((resolve) => setImmediate(resolve));
        }
      }
      const grown = peak - before;
      assert.equal(total, 2 ** 30, "every byte arrived");
      assert.ok(grown < 200 * MiB, `the caller's RSS grew by ${(grown / MiB).toFixed(1)} MiB for a 1 GiB file`);
    } finally {
      await runtime.destroy(handle);
    }
  });

  test("chunks join to the file's exact bytes; an empty file yields nothing; the file stays readable", async () => {
    const handle = await runtime.launch();
    const bytes = pattern(3 * STREAM_CHUNK_BYTES + 12_345);
    await runtime.writeFiles(handle, [
      { path: "data/pattern.bin", content: bytes },
      { path: "data/empty.bin", content: "" },
    ]);
    assert.ok((await collect(stream(handle, "data/pattern.bin"))).equals(bytes), "the chunks join to the file");
    assert.ok(
      (await collect(stream(handle, `${runtime.workspaceRoot}/data/pattern.bin`))).equals(bytes),
      "an absolute path in the workspace names the same file",
    );
    let chunks = 0;
    for await (const _ of stream(handle, "data/empty.bin")) chunks++;
    assert.equal(chunks, 0, "an empty file yields no chunk");
    // Each chunk is a buffer of its own: keeping one keeps no other memory alive.
    for await (const chunk of stream(handle, "data/pattern.bin")) {
      assert.equal(chunk.buffer.byteLength, chunk.byteLength);
      assert.ok(!Buffer.isBuffer(chunk), "a plain Uint8Array, as readFile returns");
    }
    await runtime.destroy(handle);
  });

  test("a file that grows while streamed is read up to its size when opened", async () => {
    const handle = await runtime.launch();
    const file = join(handle.workspaceDirectory, "growing.bin");
    writeFileSync(file, pattern(2 * STREAM_CHUNK_BYTES));
    const iterator = stream(handle, "growing.bin")[Symbol.asyncIterator]();
    const first = await iterator.next();
    truncateSync(file, 8 * STREAM_CHUNK_BYTES);
    let total = first.value?.byteLength ?? 0;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) total += next.value.byteLength;
    assert.equal(total, 2 * STREAM_CHUNK_BYTES);
    await runtime.destroy(handle);
  });

  test("aborting between chunks closes the file at once; the next pull rejects ABORTED", async () => {
    const handle = await runtime.launch();
    const file = join(handle.workspaceDirectory, "abort.bin");
    writeFileSync(file, "");
    truncateSync(file, 64 * MiB);
    const controller = new AbortController();
    const iterator = stream(handle, "abort.bin", { signal: controller.signal })[Symbol.asyncIterator]();
    assert.equal((await iterator.next()).value?.byteLength, STREAM_CHUNK_BYTES);
    assert.equal(descriptorsOn(file), 1, "the stream holds the file open");
    controller.abort(new Error("enough"));
    assert.ok(await waitFor(() => descriptorsOn(file) === 0, 2_000), "the abort closed the file without a pull");
    const error = await iterator.next().then(
      () => assert.fail("a pull after the abort resolved"),
      (caught: unknown) => caught,
    );
    assert.ok(SandportError.hasCode(error, "ABORTED"), String(error));
    assert.equal((error.cause as Error).message, "enough");
    // A signal aborted before the call: refused before anything is opened.
    assert.equal((await refusal(stream(handle, "abort.bin", { signal: controller.signal }))).code, "ABORTED");
    await runtime.destroy(handle);
  });

  test("leaving the loop early closes the file", async () => {
    const handle = await runtime.launch();
    const file = join(handle.workspaceDirectory, "break.bin");
    writeFileSync(file, "");
    truncateSync(file, 64 * MiB);
    const before = readdirSync("/proc/self/fd").length;
    for await (const _ of stream(handle, "break.bin")) {
      assert.equal(descriptorsOn(file), 1);
      break;
    }
    assert.equal(descriptorsOn(file), 0, "the break closed the file");
    assert.ok(readdirSync("/proc/self/fd").length <= before, "no descriptor was left behind");
    await runtime.destroy(handle);
  });

  test("the deadline bounds the whole stream: past it the file is closed and the next pull is DEADLINE_EXCEEDED", async () => {
    const handle = await runtime.launch();
    const file = join(handle.workspaceDirectory, "slow.bin");
    writeFileSync(file, "");
    truncateSync(file, 64 * MiB);
    const iterator = stream(handle, "slow.bin", { timeoutMs: 300 })[Symbol.asyncIterator]();
    await iterator.next();
    assert.ok(await waitFor(() => descriptorsOn(file) === 0, 3_000), "the deadline closed the file");
    const error = await iterator.next().then(
      () => assert.fail("a pull after the deadline resolved"),
      (caught: unknown) => caught,
    );
    assert.ok(SandportError.hasCode(error, "DEADLINE_EXCEEDED"), String(error));
    assert.deepEqual(error.details, { operation: "readFileStream", timeoutMs: 300 });
    await runtime.destroy(handle);
  });

  test("a destroy mid-stream closes the file, resolves, and the next pull is NOT_FOUND", async () => {
    const handle = await runtime.launch();
    const file = join(handle.workspaceDirectory, "doomed.bin");
    writeFileSync(file, "");
    truncateSync(file, 64 * MiB);
    const iterator = stream(handle, "doomed.bin")[Symbol.asyncIterator]();
    await iterator.next();
    assert.equal(descriptorsOn(file), 1);
    const started = performance.now();
    await runtime.destroy(handle);
    assert.ok(performance.now() - started < 5_000, "the destroy did not wait out the paused stream");
    assert.equal(descriptorsOn(file), 0, "the destroy closed the stream's file before it resolved");
    const error = await iterator.next().then(
      () => assert.fail("a pull after the destroy resolved"),
      (caught: unknown) => caught,
    );
    assert.ok(SandportError.hasCode(error, "NOT_FOUND"), String(error));
    // A stream of a destroyed sandbox is refused outright.
    assert.equal((await refusal(stream(handle, "doomed.bin"))).code, "NOT_FOUND");
  });

  test("a destroy by another runtime ends the stream with NOT_FOUND at its next liveness check", async () => {
    // Without a disk bound (the next test has one).
    const unbounded = new LocalRuntime({ root: root.path, isolation: "none", defaultResources: false });
    const handle = await unbounded.launch();
    const file = join(handle.workspaceDirectory, "elsewhere.bin");
    writeFileSync(file, "");
    truncateSync(file, 64 * MiB);
    const iterator = unbounded.readFileStream(handle, "elsewhere.bin")[Symbol.asyncIterator]();
    await iterator.next();
    await new LocalRuntime({ root: root.path, isolation: "none", defaultResources: false }).destroy(handle);
    await delay(STREAM_LIVENESS_MS + 50);
    const error = await iterator.next().then(
      () => assert.fail("a pull after another runtime destroyed the sandbox resolved"),
      (caught: unknown) => caught,
    );
    assert.ok(SandportError.hasCode(error, "NOT_FOUND"), String(error));
    assert.equal(descriptorsOn(file), 0);
  });

  test("a destroy by another runtime of a bounded workspace is verified: the paused stream lets go of its file", {
    skip: noDisk,
  }, async () => {
    // An open file keeps a bounded workspace's file system busy: the other runtime's destroy unmounts it only once
    // this stream, paused between chunks, has seen the destroy begin and closed its file.
    const bounded = new LocalRuntime({ root: root.path, isolation: "none", defaultResources: false });
    const handle = await bounded.launch({ resources: { diskMiB: 128 } });
    const file = join(handle.workspaceDirectory, "bounded.bin");
    writeFileSync(file, "");
    truncateSync(file, 64 * MiB);
    const iterator = bounded.readFileStream(handle, "bounded.bin")[Symbol.asyncIterator]();
    await iterator.next();
    assert.equal(descriptorsOn(file), 1, "the paused stream holds its file");
    await new LocalRuntime({ root: root.path, isolation: "none", defaultResources: false }).destroy(handle);
    assert.equal(await bounded.getById(handle.id), undefined, "the destroy was verified: the sandbox is gone");
    const error = await iterator.next().then(
      () => assert.fail("a pull after another runtime destroyed the sandbox resolved"),
      (caught: unknown) => caught,
    );
    assert.ok(SandportError.hasCode(error, "NOT_FOUND"), String(error));
  });

  test("missing files are NOT_FOUND; escaping paths, symlinks and non-regular files INVALID_REQUEST", async () => {
    const handle = await runtime.launch();
    const workspace = handle.workspaceDirectory;
    mkdirSync(join(workspace, "links"));
    writeFileSync(join(workspace, "inside.txt"), "inside");
    symlinkSync(join(outside.path, "secret.txt"), join(workspace, "links/secret"));
    symlinkSync(outside.path, join(workspace, "links/outside-dir"));
    symlinkSync("../inside.txt", join(workspace, "links/inside"));
    const made = await runtime.exec(handle, { shell: "mkfifo links/fifo && mkdir links/dir" });
    assert.equal(made.exitCode, 0, made.stderr);
    for (const path of ["missing.txt", "no/such/dir/file.txt"]) {
      assert.equal((await refusal(stream(handle, path))).code, "NOT_FOUND", path);
    }
    for (const path of [
      "../escape.txt",
      "/etc/passwd",
      `${runtime.workspaceRoot}/../escape.txt`,
      "%2e%2e/escape.txt",
      "file\u0000.txt",
      "",
      "links/secret",
      "links/outside-dir/secret.txt",
      "links/inside",
      "links/fifo",
      "links/dir",
    ]) {
      const error = await refusal(stream(handle, path));
      assert.equal(error.code, "INVALID_REQUEST", `${JSON.stringify(path)}: ${error.message}`);
    }
    await runtime.destroy(handle);
  });

  test("a file swapped for a symlink to a host file after it was opened keeps streaming its own bytes", async () => {
    const handle = await runtime.launch();
    const workspace = handle.workspaceDirectory;
    const bytes = pattern(4 * STREAM_CHUNK_BYTES);
    writeFileSync(join(workspace, "swapped.bin"), bytes);
    const parts: Uint8Array[] = [];
    const iterator = stream(handle, "swapped.bin")[Symbol.asyncIterator]();
    const first = await iterator.next();
    assert.ok(first.value);
    parts.push(first.value);
    // Replace the name atomically: from now on it is a symlink to a host file.
    symlinkSync(join(outside.path, "secret.txt"), join(workspace, "swap-link"));
    renameSync(join(workspace, "swap-link"), join(workspace, "swapped.bin"));
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) parts.push(next.value);
    const streamed = Buffer.concat(parts);
    assert.ok(streamed.equals(bytes), "the stream read the file it opened");
    assert.ok(!streamed.includes(SECRET), "nothing of the host file leaked");
    assert.equal(
      (await refusal(stream(handle, "swapped.bin"))).code,
      "INVALID_REQUEST",
      "a new stream refuses the link",
    );
    await runtime.destroy(handle);
  });

  test("maxBytes refuses a larger file with OUTPUT_LIMIT before any chunk; malformed options are INVALID_REQUEST", async () => {
    const handle = await runtime.launch();
    const file = join(handle.workspaceDirectory, "capped.bin");
    writeFileSync(file, "");
    truncateSync(file, 4 * 2 ** 30);
    const error = await refusal(stream(handle, "capped.bin", { maxBytes: 2 ** 30 }));
    assert.equal(error.code, "OUTPUT_LIMIT");
    assert.deepEqual(error.details, { path: "capped.bin", size: 4 * 2 ** 30, limit: 2 ** 30 });
    assert.equal(descriptorsOn(file), 0, "the refused file was closed");
    writeFileSync(file, "0123456789");
    assert.equal((await collect(stream(handle, "capped.bin", { maxBytes: 10 }))).toString(), "0123456789");
    assert.equal((await refusal(stream(handle, "capped.bin", { maxBytes: 9 }))).code, "OUTPUT_LIMIT");
    for (const options of [
      { maxBytes: -1 },
      { maxBytes: 0.5 },
      { maxBytes: Number.POSITIVE_INFINITY },
      { maxBytes: "1" },
      { timeoutMs: -5 },
      { maxbytes: 10 },
      "fast",
    ]) {
      const refused = await refusal(stream(handle, "capped.bin", options as never));
      assert.equal(refused.code, "INVALID_REQUEST", JSON.stringify(options));
    }
    await runtime.destroy(handle);
  });
});
