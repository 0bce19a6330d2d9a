// Files through the real SDK against the emulator: bytes both ways in one
// writeFiles call, the 100 MB payload limit refused before sending, a missing
// file NOT_FOUND.
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectCode } from "@sandport/testkit/assertions";
import { emulated } from "../test/emulated.js";

const { emulator, runtime } = await emulated({ owner: "files-tests" });

test("every byte value survives, and twenty files are one writeFiles request", async () => {
  const handle = await runtime.launch({});
  try {
    const every = new Uint8Array(256).map((_, index) => index);
    const files = Array.from({ length: 20 }, (_, index) => ({ path: `d/f${index}.bin`, content: every }));
    emulator.resetRequests();
    await runtime.writeFiles(handle, files);
    assert.deepEqual(emulator.toolCalls, ["writeFiles"]);
    assert.deepEqual([...(await runtime.readFile(handle, "d/f19.bin"))], [...every]);
  } finally {
    await runtime.destroy(handle);
  }
});

test("a batch past the 100 MB payload limit is refused before anything is sent", async () => {
  const handle = await runtime.launch({});
  try {
    const before = emulator.requests.length;
    const big = new Uint8Array(40 * 1000 * 1000);
    await expectCode(
      () =>
        runtime.writeFiles(handle, [
          { path: "a.bin", content: big },
          { path: "b.bin", content: big },
        ]),
      "INVALID_REQUEST",
      "80 MB encode past 100 MB",
    );
    assert.equal(emulator.requests.length, before);
  } finally {
    await runtime.destroy(handle);
  }
});

test("a missing file is NOT_FOUND, after a command has run too", async () => {
  const handle = await runtime.launch({});
  try {
    await expectCode(() => runtime.readFile(handle, "missing.txt"), "NOT_FOUND", "in a pristine session");
    await runtime.exec(handle, { argv: ["true"] });
    await expectCode(() => runtime.readFile(handle, "nope/missing.txt"), "NOT_FOUND", "after a command");
  } finally {
    await runtime.destroy(handle);
  }
});

test("once a command has run, a read is one guarded command; a file past 256 KiB is that command, then readFiles", async () => {
  const handle = await runtime.launch({});
  try {
    const every = new Uint8Array(256).map((_, index) => index);
    const large = new Uint8Array(256 * 1024 + 1).fill(7);
    await runtime.writeFiles(handle, [
      { path: "all.bin", content: every },
      { path: "large.bin", content: large },
    ]);
    await runtime.exec(handle, { argv: ["true"] });
    emulator.resetRequests();
    assert.deepEqual(await runtime.readFile(handle, "all.bin"), every);
    const command = emulator.requests.map((request) => request.route);
    assert.deepEqual(emulator.toolCalls, ["executeCommand"], "one command resolves, checks and prints the file");
    emulator.resetRequests();
    assert.deepEqual(await runtime.readFile(handle, "large.bin"), large);
    assert.deepEqual(emulator.toolCalls, ["executeCommand", "readFiles"]);
    emulator.resetRequests();
    const refused = await expectCode(runtime.readFile(handle, "large.bin", { maxBytes: 1000 }), "OUTPUT_LIMIT");
    assert.equal(refused.details.size, large.byteLength);
    assert.deepEqual(emulator.toolCalls, ["executeCommand"], "refused on the size the command printed");
    assert.deepEqual(
      emulator.requests.map((request) => request.route),
      command,
    );
  } finally {
    await runtime.destroy(handle);
  }
});
