// Files through the real freestyle SDK's raw-byte calls against the emulator:
// binary exactness (a large file through the SDK's resumable upload too),
// modes, the symlink guard and when it is skipped, retries of file requests,
// and what listDir costs.
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectCode } from "@sandport/testkit/assertions";
import { emulated } from "../test/emulated.js";

const WRITE = "PUT /v5/vms/:id/fs/write";
const READ = "GET /v5/vms/:id/fs/read";
const EXEC = "POST /v5/vms/:id/exec-await";

const { emulator, runtime } = await emulated({ owner: "files-tests" });
const allBytes = Uint8Array.from({ length: 256 }, (_, index) => index);

test("a fresh VM: a batch is one command with the files as an archive, no guard until a command has run", async () => {
  const handle = await runtime.launch();
  emulator.resetRequests();
  await runtime.writeFiles(handle, [
    { path: "bin/all.bin", content: allBytes },
    { path: "text.txt", content: "ünï ✓\n" },
    { path: "run.sh", content: "#!/bin/sh\necho ran\n", mode: 0o755 },
  ]);
  assert.deepEqual(await runtime.readFile(handle, "bin/all.bin"), allBytes);
  assert.deepEqual(
    emulator.requests.map((request) => request.route),
    [EXEC, READ],
  );
  assert.equal((await runtime.exec(handle, { argv: ["./run.sh"] })).stdout, "ran\n");
  const modes = await runtime.exec(handle, { shell: "stat -c %a text.txt run.sh" });
  assert.equal(modes.stdout, "644\n755\n", "the port's default mode, and the asked one");
  emulator.resetRequests();
  assert.equal(new TextDecoder().decode(await runtime.readFile(handle, "text.txt")), "ünï ✓\n");
  assert.deepEqual(
    emulator.requests.map((request) => request.route),
    [EXEC],
    "after a command, one command resolves, checks and prints the file",
  );
  await runtime.destroy(handle);
});

test("20 files are one exec-await request, were 20 PUTs; past 1 MiB the archive is uploaded first", async () => {
  const handle = await runtime.launch();
  const files = Array.from({ length: 20 }, (_, index) => ({
    path: `src/${index % 3}/f${String(index).padStart(2, "0")}.txt`,
    content: `${index}`.padEnd(1024, "."),
    ...(index === 7 ? { mode: 0o755 } : {}),
  }));
  emulator.resetRequests();
  await runtime.writeFiles(handle, files);
  assert.deepEqual(
    emulator.requests.map((request) => request.route),
    [EXEC],
  );
  assert.equal(new TextDecoder().decode(await runtime.readFile(handle, "src/1/f19.txt")), files[19]?.content);
  const modes = await runtime.exec(handle, { shell: "stat -c %a src/1/f07.txt src/2/f08.txt" });
  assert.equal(modes.stdout, "755\n644\n");
  const large = Uint8Array.from({ length: 1 << 20 }, (_, index) => (index * 13) & 0xff);
  emulator.resetRequests();
  await runtime.writeFiles(handle, [
    { path: "large/a.bin", content: large },
    { path: "large/b.bin", content: allBytes },
    { path: "large/c.txt", content: "c" },
  ]);
  assert.deepEqual(
    emulator.requests.map((request) => request.route),
    [EXEC, WRITE, EXEC],
    "the guard (a command ran), the archive's upload, the command",
  );
  assert.deepEqual(await runtime.readFile(handle, "large/a.bin"), large);
  await runtime.destroy(handle);
});

test("a file above 8 MiB goes through the SDK's resumable upload and reads back exactly", async () => {
  const handle = await runtime.launch();
  const big = new Uint8Array(9 * 1024 * 1024).map((_, index) => (index * 7) % 256);
  emulator.resetRequests();
  await runtime.writeFiles(handle, [{ path: "big.bin", content: big }]);
  assert.ok(emulator.countRequests(/fs\/uploads/) >= 2, "an upload session, chunks and a commit");
  assert.deepEqual(await runtime.readFile(handle, "big.bin"), big);
  await runtime.destroy(handle);
});

test("a symlink out of the workspace is refused for reads, writes and file ops", async () => {
  const handle = await runtime.launch();
  await runtime.exec(handle, { shell: "ln -s /etc etc-link && ln -s .. up" });
  emulator.resetRequests();
  await expectCode(runtime.readFile(handle, "etc-link/hostname"), "INVALID_REQUEST");
  await expectCode(runtime.writeFiles(handle, [{ path: "up/escaped.txt", content: "x" }]), "INVALID_REQUEST");
  await expectCode(runtime.listDir(handle, "etc-link"), "INVALID_REQUEST");
  await expectCode(runtime.remove(handle, "up/workspace"), "INVALID_REQUEST");
  assert.equal(emulator.countRequests(/fs\//), 0, "only the guard commands were sent");
  assert.equal((await runtime.stat(handle, "etc-link")).kind, "symlink", "a symlink itself can be looked at");
  await runtime.destroy(handle);
});

test("file requests are retried on 429 and 5xx (each is safe to repeat); a lasting failure is typed", async () => {
  const handle = await runtime.launch();
  emulator.injectFault({ route: WRITE, fault: { kind: "status", status: 503 } });
  emulator.injectFault({ route: WRITE, fault: { kind: "drop" } });
  emulator.resetRequests();
  await runtime.writeFiles(handle, [{ path: "retried.txt", content: "ok" }]);
  assert.equal(emulator.countRequests(WRITE), 3);
  emulator.injectFault({ route: READ, fault: { kind: "status", status: 429 } });
  assert.equal(new TextDecoder().decode(await runtime.readFile(handle, "retried.txt")), "ok");
  emulator.injectFault({ route: READ, fault: { kind: "status", status: 500 }, times: 3 });
  const error = await expectCode(runtime.readFile(handle, "retried.txt"), "PROVIDER_UNAVAILABLE");
  assert.equal(error.details.path, "/root/workspace/retried.txt");
  await expectCode(runtime.readFile(handle, "missing.txt"), "NOT_FOUND");
  await runtime.destroy(handle);
});

test("listDir names the entries, then stats each: kinds, sizes and modes", async () => {
  const handle = await runtime.launch();
  await runtime.writeFiles(handle, [
    { path: "d/a.txt", content: "aaa" },
    { path: "d/b.bin", content: new Uint8Array(300), mode: 0o600 },
  ]);
  await runtime.mkdir(handle, "d/sub");
  emulator.resetRequests();
  const entries = (await runtime.listDir(handle, "d")).sort((a, b) => a.name.localeCompare(b.name));
  assert.deepEqual(
    entries.map(({ name, path, kind, size, mode }) => ({ name, path, kind, size: kind === "file" ? size : 0, mode })),
    [
      { name: "a.txt", path: "d/a.txt", kind: "file", size: 3, mode: 0o644 },
      { name: "b.bin", path: "d/b.bin", kind: "file", size: 300, mode: 0o600 },
      { name: "sub", path: "d/sub", kind: "directory", size: 0, mode: 0o755 },
    ],
  );
  assert.equal(emulator.countRequests("GET /v5/vms/:id/fs/dir"), 1);
  assert.equal(emulator.countRequests("GET /v5/vms/:id/fs/stat"), 3);
  await runtime.remove(handle, "d");
  await runtime.remove(handle, "d");
  await expectCode(runtime.stat(handle, "d"), "NOT_FOUND");
  await expectCode(runtime.remove(handle, "."), "INVALID_REQUEST");
  await runtime.destroy(handle);
});

test("once a command has run, a file past 256 KiB is the guarded read command, then the download", async () => {
  const handle = await runtime.launch();
  const large = new Uint8Array(256 * 1024 + 1).map((_, index) => (index * 7) % 256);
  await runtime.writeFiles(handle, [{ path: "large.bin", content: large }]);
  await runtime.exec(handle, { argv: ["true"] });
  emulator.resetRequests();
  assert.deepEqual(await runtime.readFile(handle, "large.bin"), large);
  assert.deepEqual(
    emulator.requests.map((request) => request.route),
    [EXEC, READ],
  );
  emulator.resetRequests();
  const refused = await expectCode(runtime.readFile(handle, "large.bin", { maxBytes: 1000 }), "OUTPUT_LIMIT");
  assert.deepEqual(refused.details, { path: "/root/workspace/large.bin", size: large.byteLength, limit: 1000 });
  assert.deepEqual(
    emulator.requests.map((request) => request.route),
    [EXEC],
    "refused on the size the command printed, nothing downloaded",
  );
  const missing = await expectCode(runtime.readFile(handle, "missing.txt"), "NOT_FOUND");
  assert.equal(missing.details.path, "/root/workspace/missing.txt");
  await runtime.destroy(handle);
});
