import assert from "node:assert/strict";
import type { SandboxHandle } from "@sandport/core";
import {
  allByteValues,
  assertBytesEqual,
  assertSucceeded,
  expectCode,
  fileExists,
  readText,
  utf8,
} from "./assertions.js";
import type { CheckGroup } from "./suite.js";

/**
 * Registers the file round-trip checks: text, binary, nested paths, many files,
 * modes, files shared with commands, and missing files.
 */
export function declareFileChecks<H extends SandboxHandle>(group: CheckGroup<H>): void {
  const { runtime } = group;

  group.check("files.text", async () => {
    const handle = group.sandbox();
    const text = "héllo wörld — 日本語 🚀\nline two\r\n\ttabbed\u0000nul\nno trailing newline";
    await runtime.writeFiles(handle, [
      { path: "text/hello.txt", content: text },
      { path: "text/empty.txt", content: "" },
      { path: "text/overwrite.txt", content: "a long first version of this file" },
    ]);
    await runtime.writeFiles(handle, [{ path: "text/overwrite.txt", content: "short" }]);
    assertBytesEqual(await runtime.readFile(handle, "text/hello.txt"), utf8(text), "text/hello.txt");
    assert.equal((await runtime.readFile(handle, "text/empty.txt")).length, 0, "an empty file reads back empty");
    assert.equal(await readText(runtime, handle, "text/overwrite.txt"), "short", "an overwrite replaces all content");
  });

  group.check("files.binary", async () => {
    const handle = group.sandbox();
    const every = allByteValues();
    const large = Uint8Array.from({ length: 1 << 20 }, (_, index) => (index * 131 + (index >> 8)) & 0xff);
    await runtime.writeFiles(handle, [
      { path: "binary/all-bytes.bin", content: every },
      { path: "binary/large.bin", content: large },
    ]);
    assertBytesEqual(await runtime.readFile(handle, "binary/all-bytes.bin"), every, "binary/all-bytes.bin");
    assertBytesEqual(await runtime.readFile(handle, "binary/large.bin"), large, "binary/large.bin (1 MiB)");
  });

  group.check("files.nested", async () => {
    const handle = group.sandbox();
    const root = runtime.workspaceRoot;
    await runtime.writeFiles(handle, [
      { path: "nested/a/b/c/d/deep.txt", content: "deep" },
      { path: `${root}/nested/absolute.txt`, content: "absolute" },
    ]);
    assert.equal(await readText(runtime, handle, `${root}/nested/a/b/c/d/deep.txt`), "deep", "absolute read");
    assert.equal(await readText(runtime, handle, "./nested/a/b/c/d/deep.txt"), "deep", "./-prefixed read");
    assert.equal(await readText(runtime, handle, "nested/absolute.txt"), "absolute", "relative read");
  });

  group.check("files.many", async () => {
    const handle = group.sandbox();
    const files = Array.from({ length: 200 }, (_, index) => ({
      path: `many/dir-${index % 10}/file-${index}.txt`,
      content: `file ${index}\n${"x".repeat(index)}`,
    }));
    await runtime.writeFiles(handle, files);
    for (let start = 0; start < files.length; start += 25) {
      await Promise.all(
        files.slice(start, start + 25).map(async (file) => {
          assert.equal(await readText(runtime, handle, file.path), file.content, file.path);
        }),
      );
    }
  });

  group.check("files.mode", async () => {
    const handle = group.sandbox();
    const script = "#!/bin/sh\necho mode-ok\n";
    await runtime.writeFiles(handle, [
      { path: "mode/run.sh", content: script, mode: 0o755 },
      { path: "mode/plain.sh", content: script },
    ]);
    const ran = await runtime.exec(handle, { argv: ["./mode/run.sh"] });
    assert.equal(assertSucceeded(ran, "a 0o755 script").stdout, "mode-ok\n");
    const plain = await runtime.exec(handle, { shell: "test -x mode/plain.sh" });
    assert.notEqual(plain.exitCode, 0, "a file written without mode is not executable (default 0o644)");
  });

  group.check("files.shared-with-exec", async () => {
    const handle = group.sandbox();
    await runtime.writeFiles(handle, [{ path: "shared/all-bytes.bin", content: allByteValues() }]);
    const size = await runtime.exec(handle, { shell: "wc -c < shared/all-bytes.bin" });
    assert.equal(assertSucceeded(size, "wc -c").stdout.trim(), "256", "the command sees all 256 bytes");
    const hex = await runtime.exec(handle, { shell: "od -An -tx1 -v shared/all-bytes.bin | tr -d ' \\n'" });
    const expected = Buffer.from(allByteValues()).toString("hex");
    assert.equal(assertSucceeded(hex, "od").stdout, expected, "the command sees the exact bytes");
    const made = await runtime.exec(handle, {
      shell:
        "printf 'made by exec' > shared/from-exec.txt && printf '\\000\\001\\177\\200\\377' > shared/from-exec.bin",
    });
    assertSucceeded(made, "writing files from a command");
    assert.equal(await readText(runtime, handle, "shared/from-exec.txt"), "made by exec");
    assertBytesEqual(
      await runtime.readFile(handle, "shared/from-exec.bin"),
      Uint8Array.from([0, 1, 0x7f, 0x80, 0xff]),
      "shared/from-exec.bin",
    );
  });

  group.check("files.not-found", async () => {
    const handle = group.sandbox();
    await expectCode(() => runtime.readFile(handle, "missing.txt"), "NOT_FOUND", "readFile of a missing file");
    await expectCode(
      () => runtime.readFile(handle, "no/such/directory/file.txt"),
      "NOT_FOUND",
      "readFile under a missing directory",
    );
    assert.equal(await fileExists(runtime, handle, "missing.txt"), false);
  });

  group.check("files.max-bytes", async () => {
    const handle = group.sandbox();
    await runtime.writeFiles(handle, [{ path: "capped/ten.txt", content: "0123456789" }]);
    assert.equal(utf8Decode(await runtime.readFile(handle, "capped/ten.txt", { maxBytes: 10 })), "0123456789");
    const refused = await expectCode(
      () => runtime.readFile(handle, "capped/ten.txt", { maxBytes: 9 }),
      "OUTPUT_LIMIT",
      "readFile of 10 bytes with maxBytes 9",
    );
    assert.equal(refused.details?.limit, 9, "details.limit names the cap");
    for (const maxBytes of [-1, 0.5, 2 ** 31]) {
      await expectCode(
        () => runtime.readFile(handle, "capped/ten.txt", { maxBytes }),
        "INVALID_REQUEST",
        `readFile with maxBytes ${maxBytes}`,
      );
    }
  });
}

function utf8Decode(bytes: Uint8Array): string {
  return new TextDecoder().decode(bytes);
}
