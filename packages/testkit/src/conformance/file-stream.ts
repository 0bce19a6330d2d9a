import assert from "node:assert/strict";
import type { SandboxHandle, SandboxRuntime, SandportError } from "@sandport/core";
import { allByteValues, assertBytesEqual, assertSucceeded, expectCode } from "./assertions.js";
import { escapingPaths } from "./paths.js";
import { type CheckGroup, GROUP_LABEL } from "./suite.js";

/** A file several chunks long on any runtime, whose bytes differ at every offset modulo 251. */
const LARGE_BYTES = 16 * 2 ** 20 + 12_345;

function pattern(length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let index = 0; index < length; index++) bytes[index] = (index * 7 + (index >> 11)) % 251;
  return bytes;
}

/** Every chunk of a stream, joined. */
async function streamed(chunks: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const chunk of chunks) {
    assert.ok(chunk instanceof Uint8Array, "every chunk is a Uint8Array");
    parts.push(chunk);
  }
  return Buffer.concat(parts);
}

/** The error a further pull of `iterator` rejects with (it must reject, not end). */
async function nextFails(iterator: AsyncIterator<Uint8Array>, what: string): Promise<SandportError> {
  return expectCode(
    async () => {
      // Pull until the stream fails: a runtime may hand over a chunk it had before the end.
      for (;;) {
        const next = await iterator.next();
        if (next.done) return "the stream ended without an error";
      }
    },
    ["ABORTED", "NOT_FOUND", "DEADLINE_EXCEEDED"],
    what,
  );
}

/**
 * Registers the `readFileStream` checks, for runtimes with `fileStreaming`:
 * the chunks join to the file's exact bytes; a missing file, an escaping path,
 * a symlink leading out and a file past `maxBytes` are refused as `readFile`
 * refuses them; an abort, leaving the loop early and a destroy end the stream
 * with the port's errors.
 */
export function declareFileStreamChecks<H extends SandboxHandle>(group: CheckGroup<H>): void {
  const { runtime, suite } = group;
  const unavailable =
    typeof runtime.readFileStream === "function"
      ? undefined
      : `fileStreaming is ${suite.capabilities.fileStreaming}: the runtime has no readFileStream`;
  const stream = (handle: H, path: string, op?: Parameters<NonNullable<SandboxRuntime<H>["readFileStream"]>>[2]) =>
    runtime.readFileStream!(handle, path, op);

  group.check(
    "files.stream",
    async () => {
      const handle = group.sandbox();
      const large = pattern(LARGE_BYTES);
      await runtime.writeFiles(handle, [
        { path: "stream/large.bin", content: large },
        { path: "stream/all-bytes.bin", content: allByteValues() },
        { path: "stream/empty.bin", content: "" },
      ]);
      assertBytesEqual(await streamed(stream(handle, "stream/large.bin")), large, "stream/large.bin");
      assertBytesEqual(await streamed(stream(handle, "stream/all-bytes.bin")), allByteValues(), "all 256 bytes");
      assertBytesEqual(
        await streamed(stream(handle, `${runtime.workspaceRoot}/stream/all-bytes.bin`)),
        allByteValues(),
        "an absolute path inside the workspace",
      );
      assert.equal((await streamed(stream(handle, "stream/empty.bin"))).length, 0, "an empty file streams empty");
      const made = await runtime.exec(handle, { shell: "printf 'made by exec' > stream/from-exec.txt" });
      assertSucceeded(made, "a file made by a command");
      assert.equal(Buffer.from(await streamed(stream(handle, "stream/from-exec.txt"))).toString(), "made by exec");
    },
    { unavailable },
  );

  group.check(
    "files.stream-refusals",
    async () => {
      const handle = group.sandbox();
      await expectCode(() => streamed(stream(handle, "stream/missing.txt")), "NOT_FOUND", "a missing file");
      await expectCode(() => streamed(stream(handle, "no/such/dir/file.txt")), "NOT_FOUND", "a missing directory");
      for (const path of escapingPaths(runtime.workspaceRoot, `sandport-stream-escape-${suite.token}`)) {
        await expectCode(
          () => streamed(stream(handle, path)),
          "INVALID_REQUEST",
          `readFileStream(${JSON.stringify(path)})`,
        );
      }
      const links = await runtime.exec(handle, {
        shell: "mkdir -p stream-links && ln -sf /etc/hostname stream-links/out && ln -sfn /etc stream-links/etc",
      });
      assertSucceeded(links, "making symlinks that lead out");
      for (const path of ["stream-links/out", "stream-links/etc/hostname"]) {
        await expectCode(() => streamed(stream(handle, path)), "INVALID_REQUEST", `a symlink leading out: ${path}`);
      }
      await runtime.writeFiles(handle, [{ path: "stream/ten.txt", content: "0123456789" }]);
      assert.equal(
        Buffer.from(await streamed(stream(handle, "stream/ten.txt", { maxBytes: 10 }))).toString(),
        "0123456789",
      );
      const capped = await expectCode(
        () => streamed(stream(handle, "stream/ten.txt", { maxBytes: 9 })),
        "OUTPUT_LIMIT",
        "a stream of 10 bytes with maxBytes 9",
      );
      assert.equal(capped.details?.limit, 9, "details.limit names the cap");
      assert.equal(capped.details?.size, 10, "details.size names the file's size");
      for (const maxBytes of [-1, 0.5, Number.POSITIVE_INFINITY]) {
        await expectCode(
          () => streamed(stream(handle, "stream/ten.txt", { maxBytes })),
          "INVALID_REQUEST",
          `maxBytes ${maxBytes}`,
        );
      }
    },
    { unavailable },
  );

  group.check(
    "files.stream-abort",
    async () => {
      const handle = group.sandbox();
      await runtime.writeFiles(handle, [{ path: "stream/abort.bin", content: pattern(LARGE_BYTES) }]);
      const controller = new AbortController();
      const iterator = stream(handle, "stream/abort.bin", { signal: controller.signal })[Symbol.asyncIterator]();
      assert.equal((await iterator.next()).done, false, "the first chunk arrives");
      controller.abort(new Error("enough"));
      const aborted = await nextFails(iterator, "a pull after the abort");
      assert.equal(aborted.code, "ABORTED");
      await expectCode(
        () => streamed(stream(handle, "stream/abort.bin", { signal: controller.signal })),
        "ABORTED",
        "a stream with an aborted signal",
      );
      for await (const _ of stream(handle, "stream/abort.bin")) break;
      const again = await streamed(stream(handle, "stream/abort.bin"));
      assert.equal(again.length, LARGE_BYTES, "after an abort and a break the file streams whole again");
    },
    { unavailable },
  );

  group.check(
    "files.stream-destroyed",
    async () => {
      const handle = await suite.launch({ labels: { [GROUP_LABEL]: "files-stream-destroyed" } });
      await runtime.writeFiles(handle, [{ path: "doomed.bin", content: pattern(LARGE_BYTES) }]);
      const iterator = stream(handle, "doomed.bin")[Symbol.asyncIterator]();
      assert.equal((await iterator.next()).done, false, "the first chunk arrives");
      await suite.destroy(handle);
      const ended = await nextFails(iterator, "a pull after the destroy");
      assert.equal(ended.code, "NOT_FOUND");
      await expectCode(() => streamed(stream(handle, "doomed.bin")), "NOT_FOUND", "a stream of a destroyed sandbox");
    },
    { unavailable },
  );
}
