// writeFiles against the Agent37 emulator: a batch is one exec carrying the
// files as an archive (its stdin embedded up to 64 KiB, uploaded first past
// it), a single file its own PUT; bytes and modes exact either way.
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectCode } from "@sandport/testkit/assertions";
import { emulated } from "../test/emulated.js";

const WRITE = "PUT /edge/:id/v1/files/content";
const EXEC = "POST /v1/instances/:id/exec";

const { emulator, runtime } = await emulated({ owner: "files-tests" });

test("20 files are one exec, were 20 PUTs; bytes and modes exact", async () => {
  const handle = await runtime.launch();
  const files = Array.from({ length: 20 }, (_, index) => ({
    path: `src/${index % 3}/f${String(index).padStart(2, "0")}.txt`,
    content: `${index}`.padEnd(1024, ".") as string | Uint8Array,
    ...(index === 7 ? { mode: 0o755 } : {}),
  }));
  const binary = Uint8Array.from({ length: 256 }, (_, index) => 255 - index);
  files[3] = { path: 'src/with space/it\'s "ü" $x.bin', content: binary };
  emulator.resetRequests();
  await runtime.writeFiles(handle, files);
  assert.deepEqual(
    emulator.requests.map((request) => request.route),
    [EXEC],
  );
  assert.deepEqual(await runtime.readFile(handle, 'src/with space/it\'s "ü" $x.bin'), binary);
  assert.equal(new TextDecoder().decode(await runtime.readFile(handle, "src/1/f19.txt")), files[19]?.content);
  const modes = await runtime.exec(handle, { shell: "stat -c %a src/1/f07.txt src/2/f08.txt" });
  assert.equal(modes.stdout, "755\n644\n");
  await runtime.destroy(handle);
});

test("past 64 KiB the archive is uploaded first; a symlink out refuses the batch before it", async () => {
  const handle = await runtime.launch();
  const large = Uint8Array.from({ length: 200_000 }, (_, index) => (index * 13) & 0xff);
  emulator.resetRequests();
  await runtime.writeFiles(handle, [
    { path: "large/a.bin", content: large },
    { path: "large/b.txt", content: "b" },
    { path: "large/c.txt", content: "c" },
  ]);
  assert.deepEqual(
    emulator.requests.map((request) => request.route),
    [WRITE, EXEC],
  );
  assert.deepEqual(await runtime.readFile(handle, "large/a.bin"), large);
  await runtime.exec(handle, { shell: "ln -s /tmp out" });
  const batch = ["a.txt", "out/escaped-by-archive.txt", "b.txt"].map((path) => ({ path, content: path }));
  await expectCode(runtime.writeFiles(handle, batch), "INVALID_REQUEST");
  const probe = await runtime.exec(handle, { shell: "test ! -e a.txt && test ! -e /tmp/escaped-by-archive.txt" });
  assert.equal(probe.exitCode, 0);
  await runtime.destroy(handle);
});
