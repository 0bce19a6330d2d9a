// readFile's per-call cap: a file larger than maxBytes is refused from its size, before any byte is buffered.
import assert from "node:assert/strict";
import { truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { DEFAULT_READ_MAX_BYTES, SandportError } from "@sandport/core";
import { LocalRuntime } from "../index.js";
import { temporaryDirectory } from "../runtime.fixture.js";

const root = temporaryDirectory("read-cap");
after(() => root.remove());
// No command runs here, so the isolation mode does not matter; `none` needs no bubblewrap.
const runtime = new LocalRuntime({ root: root.path, isolation: "none" });

describe("readFile maxBytes", () => {
  test("a 1 GiB sparse file is refused with OUTPUT_LIMIT by default, without buffering it", async () => {
    const handle = await runtime.launch();
    const size = 2 ** 30;
    // Sparse: costs no disk, but a read of it would fill 1 GiB of the caller's memory.
    writeFileSync(join(handle.workspaceDirectory, "big.bin"), "");
    truncateSync(join(handle.workspaceDirectory, "big.bin"), size);
    const before = process.memoryUsage().rss;
    const refused = await runtime.readFile(handle, "big.bin").catch((error: unknown) => error);
    const grown = process.memoryUsage().rss - before;
    assert.ok(SandportError.hasCode(refused, "OUTPUT_LIMIT"), String(refused));
    assert.deepEqual(refused.details, { path: "big.bin", size, limit: DEFAULT_READ_MAX_BYTES });
    assert.match(refused.message, new RegExp(`${size} bytes.*maxBytes \\(${DEFAULT_READ_MAX_BYTES}\\)`));
    assert.ok(grown < 64 * 2 ** 20, `rss grew by ${grown} bytes`);
    await runtime.destroy(handle);
  });

  test("the cap is per call: a file of exactly maxBytes is read, one byte more is refused, a larger cap reads it", async () => {
    const handle = await runtime.launch();
    writeFileSync(join(handle.workspaceDirectory, "ten.txt"), "0123456789");
    assert.equal((await runtime.readFile(handle, "ten.txt", { maxBytes: 10 })).byteLength, 10);
    const refused = await runtime.readFile(handle, "ten.txt", { maxBytes: 9 }).catch((error: unknown) => error);
    assert.ok(SandportError.hasCode(refused, "OUTPUT_LIMIT"));
    assert.deepEqual(refused.details, { path: "ten.txt", size: 10, limit: 9 });
    const empty = await runtime.readFile(handle, "ten.txt", { maxBytes: 0 }).catch((error: unknown) => error);
    assert.ok(SandportError.hasCode(empty, "OUTPUT_LIMIT"));
    const over = DEFAULT_READ_MAX_BYTES + 1;
    truncateSync(join(handle.workspaceDirectory, "ten.txt"), over);
    assert.equal((await runtime.readFile(handle, "ten.txt", { maxBytes: over })).byteLength, over);
    await runtime.destroy(handle);
  });

  test("a malformed maxBytes is INVALID_REQUEST", async () => {
    const handle = await runtime.launch();
    writeFileSync(join(handle.workspaceDirectory, "f.txt"), "x");
    for (const maxBytes of [-1, 0.5, Number.POSITIVE_INFINITY, 2 ** 31, "1"]) {
      const refused = await runtime.readFile(handle, "f.txt", { maxBytes } as never).catch((error: unknown) => error);
      assert.ok(SandportError.hasCode(refused, "INVALID_REQUEST"), `maxBytes ${String(maxBytes)}: ${String(refused)}`);
    }
    await runtime.destroy(handle);
  });
});
