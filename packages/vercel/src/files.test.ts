// writeFiles and readFile through the real @vercel/sandbox SDK against the Vercel emulator:
// one tar.gz upload per batch, exact bytes, and the symlink check that is skipped only
// while no command has run in a sandbox launched here.
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectCode } from "@sandport/testkit/assertions";
import { emulated } from "../test/emulated.js";

const CMD = "POST /v2/sandboxes/sessions/:sessionId/cmd";
const WRITE = "POST /v2/sandboxes/sessions/:sessionId/fs/write";
const READ = "POST /v2/sandboxes/sessions/:sessionId/fs/read";

const { emulator, runtime, runtimeWith } = await emulated({ owner: "files-tests" });
const routes = () => emulator.requests.map((request) => request.route);

test("a batch is one upload, modes kept; reads are exact; no symlink check before any command ran", async () => {
  const handle = await runtime.launch();
  const bytes = Uint8Array.from({ length: 256 }, (_, index) => index);
  const files = Array.from({ length: 20 }, (_, index) => ({ path: `many/${index}.txt`, content: `file ${index}` }));
  emulator.resetRequests();
  await runtime.writeFiles(handle, [
    ...files,
    { path: "bin/all.bin", content: bytes },
    { path: "run.sh", content: "#!/bin/sh\necho ran\n", mode: 0o755 },
  ]);
  assert.deepEqual(await runtime.readFile(handle, "bin/all.bin"), bytes);
  assert.equal(
    new TextDecoder().decode(await runtime.readFile(handle, `${runtime.workspaceRoot}/many/7.txt`)),
    "file 7",
  );
  assert.deepEqual(routes(), [WRITE, READ, READ], "one upload, one read each");
  assert.equal((await runtime.exec(handle, { argv: ["./run.sh"] })).stdout, "ran\n", "the mode travelled in the tar");
  await runtime.destroy(handle);
});

test("once a command ran, or for a sandbox launched elsewhere, each file call checks symlinks first (one command)", async () => {
  const handle = await runtime.launch();
  await runtime.exec(handle, { shell: "ln -s /etc outside && ln -s ../.sandport beside" });
  emulator.resetRequests();
  await runtime.writeFiles(handle, [{ path: "a.txt", content: "a" }]);
  assert.deepEqual(routes(), [CMD, WRITE]);
  for (const path of ["outside/passwd", "beside/x"]) {
    await expectCode(runtime.readFile(handle, path), "INVALID_REQUEST", path);
    await expectCode(runtime.writeFiles(handle, [{ path, content: "x" }]), "INVALID_REQUEST", path);
  }
  const other = runtimeWith({});
  emulator.resetRequests();
  assert.equal(new TextDecoder().decode(await other.readFile(handle, "a.txt")), "a");
  assert.ok(routes().includes(CMD), "a sandbox this instance did not launch is checked");
  await runtime.destroy(handle);
});

test("a missing file is NOT_FOUND; bad paths and batches are refused before any request", async () => {
  const handle = await runtime.launch();
  await expectCode(runtime.readFile(handle, "missing.txt"), "NOT_FOUND");
  emulator.resetRequests();
  for (const path of ["../x", "/etc/passwd", "a\u0000b", "", "."]) {
    await expectCode(runtime.readFile(handle, path), "INVALID_REQUEST", JSON.stringify(path));
  }
  await expectCode(
    runtime.writeFiles(handle, [
      { path: "fine.txt", content: "x" },
      { path: "../escape.txt", content: "x" },
    ]),
    "INVALID_REQUEST",
  );
  assert.equal(emulator.countRequests(), 0);
  await expectCode(runtime.readFile(handle, "fine.txt"), "NOT_FOUND", "nothing of the refused batch was written");
  await runtime.destroy(handle);
});

test("once a command has run, a read is one guarded command; a file past 256 KiB is that command, then the download", async () => {
  const handle = await runtime.launch();
  const bytes = Uint8Array.from({ length: 256 }, (_, index) => index);
  const large = new Uint8Array(256 * 1024 + 1).fill(7);
  await runtime.writeFiles(handle, [
    { path: "bin/all.bin", content: bytes },
    { path: "large.bin", content: large },
  ]);
  await runtime.exec(handle, { argv: ["true"] });
  emulator.resetRequests();
  assert.deepEqual(await runtime.readFile(handle, "bin/all.bin"), bytes);
  const command = routes();
  assert.deepEqual(command, [CMD], "one command resolves, checks and prints the file");
  emulator.resetRequests();
  assert.deepEqual(await runtime.readFile(handle, "large.bin"), large);
  assert.deepEqual(routes(), [...command, READ], "the same command, then the download");
  emulator.resetRequests();
  const refused = await expectCode(runtime.readFile(handle, "large.bin", { maxBytes: 1000 }), "OUTPUT_LIMIT");
  assert.deepEqual(refused.details, {
    path: `${runtime.workspaceRoot}/large.bin`,
    size: large.byteLength,
    limit: 1000,
  });
  assert.deepEqual(routes(), command, "refused on the size the command printed");
  await expectCode(runtime.readFile(handle, "missing.txt"), "NOT_FOUND");
  await runtime.destroy(handle);
});
