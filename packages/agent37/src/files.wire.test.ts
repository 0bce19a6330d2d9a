// Reads over real fetch against the emulator once a command has run: one
// guarded command prints a small file; a larger one is that command, then the
// instance plane's download; a symlink out of the workspace is refused.
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectCode } from "@sandport/testkit/assertions";
import { emulated } from "../test/emulated.js";

const EXEC = "POST /v1/instances/:id/exec";
const DOWNLOAD = "GET /edge/:id/v1/files/content";

const { emulator, runtime } = await emulated({ owner: "files-tests" });

test("once a command has run, a read is one guarded command; a file past 256 KiB is that command, then the download", async () => {
  const handle = await runtime.launch();
  try {
    const every = Uint8Array.from({ length: 256 }, (_, index) => index);
    const large = new Uint8Array(256 * 1024 + 1).fill(7);
    await runtime.writeFiles(handle, [
      { path: "all.bin", content: every },
      { path: "large.bin", content: large },
    ]);
    await runtime.exec(handle, { shell: "ln -s /etc escape" });
    const routes = () => emulator.requests.map((request) => request.route);
    emulator.resetRequests();
    assert.deepEqual(await runtime.readFile(handle, "all.bin"), every);
    assert.deepEqual(routes(), [EXEC], "one command resolves, checks and prints the file");
    emulator.resetRequests();
    assert.deepEqual(await runtime.readFile(handle, "large.bin"), large);
    assert.deepEqual(routes(), [EXEC, DOWNLOAD]);
    emulator.resetRequests();
    const refused = await expectCode(runtime.readFile(handle, "large.bin", { maxBytes: 1000 }), "OUTPUT_LIMIT");
    assert.equal(refused.details.size, large.byteLength);
    assert.deepEqual(routes(), [EXEC], "refused on the size the command printed");
    await expectCode(runtime.readFile(handle, "escape/hostname"), "INVALID_REQUEST");
    await expectCode(runtime.readFile(handle, "missing.txt"), "NOT_FOUND");
    assert.equal(emulator.countRequests(DOWNLOAD), 0, "nothing downloaded for a refused read");
  } finally {
    await runtime.destroy(handle);
  }
});
