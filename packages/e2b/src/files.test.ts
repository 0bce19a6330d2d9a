// File operations through the real e2b SDK against the E2B emulator: one
// batched upload, exact bytes, modes, path refusals and the symlink guard.
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectCode } from "@sandport/testkit/assertions";
import { emulated } from "../test/emulated.js";

const START = "rpc process.Process/Start";
const ROOT = "/home/user/workspace";

const { emulator, runtime } = await emulated({ owner: "file-tests" });

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

test("writeFiles sends all files in one batched upload; reads are binary-exact", async () => {
  const handle = await runtime.launch();
  const files = Array.from({ length: 20 }, (_, index) => ({ path: `src/f${index}.txt`, content: `file ${index}` }));
  const bytes = Uint8Array.from({ length: 256 }, (_, index) => index);
  emulator.resetRequests();
  await runtime.writeFiles(handle, [...files, { path: `${ROOT}/bin/all.bin`, content: bytes }]);
  assert.deepEqual(
    emulator.requests.map((request) => request.route),
    ["POST /files"],
    "one request for 21 files, no symlink check in a fresh sandbox",
  );
  assert.deepEqual(await runtime.readFile(handle, "bin/all.bin"), bytes);
  assert.equal(text(await runtime.readFile(handle, "src/f19.txt")), "file 19");
  assert.equal(text(await runtime.readFile(handle, `${ROOT}/src/f0.txt`)), "file 0");
  await runtime.writeFiles(handle, []);
});

test("readFile's maxBytes: malformed is refused before any request; a larger file is OUTPUT_LIMIT once downloaded", async () => {
  const handle = await runtime.launch();
  await runtime.writeFiles(handle, [{ path: "ten.txt", content: "0123456789" }]);
  emulator.resetRequests();
  for (const maxBytes of [-1, 2.5, 2 ** 31]) {
    await expectCode(runtime.readFile(handle, "ten.txt", { maxBytes }), "INVALID_REQUEST", String(maxBytes));
  }
  assert.equal(emulator.countRequests(), 0);
  assert.equal(text(await runtime.readFile(handle, "ten.txt", { maxBytes: 10 })), "0123456789");
  const refused = await expectCode(runtime.readFile(handle, "ten.txt", { maxBytes: 9 }), "OUTPUT_LIMIT");
  assert.deepEqual(refused.details, { path: `${ROOT}/ten.txt`, size: 10, limit: 9 });
});

test("modes other than 0o644 are applied with one chmod command", async () => {
  const handle = await runtime.launch();
  emulator.resetRequests();
  await runtime.writeFiles(handle, [
    { path: "run.sh", content: "#!/bin/sh\necho ran\n", mode: 0o755 },
    { path: "plain.txt", content: "x" },
    { path: "same.txt", content: "x", mode: 0o644 },
  ]);
  assert.equal(emulator.countRequests(START), 1, "one chmod");
  assert.equal((await runtime.stat(handle, "run.sh")).mode, 0o755);
  assert.equal((await runtime.exec(handle, { argv: ["./run.sh"] })).stdout, "ran\n");
});

test("escaping paths are refused before any request, and a bad entry writes nothing", async () => {
  const handle = await runtime.launch();
  emulator.resetRequests();
  for (const path of ["../x", "/etc/passwd", "a/%2e%2e/%2e%2e/x", "a\u0000b"]) {
    await expectCode(runtime.readFile(handle, path), "INVALID_REQUEST", path);
    const batch = [
      { path: "ok.txt", content: "" },
      { path, content: "" },
    ];
    await expectCode(runtime.writeFiles(handle, batch), "INVALID_REQUEST", path);
    await expectCode(runtime.listDir(handle, path), "INVALID_REQUEST", path);
  }
  await expectCode(runtime.remove(handle, "."), "INVALID_REQUEST");
  assert.equal(emulator.countRequests(), 0);
});

test("symlinks that lead out of the workspace are refused once a command has run", async () => {
  const handle = await runtime.launch();
  const made = await runtime.exec(handle, {
    shell:
      "mkdir -p links && ln -s /etc links/etc-dir && ln -s /etc/hostname links/etc-file && ln -s ../.. links/up && ln -s .. links/inside",
  });
  assert.equal(made.exitCode, 0);
  for (const path of ["links/etc-file", "links/etc-dir/hostname", "links/up/etc/hostname"]) {
    await expectCode(runtime.readFile(handle, path), "INVALID_REQUEST", path);
  }
  await expectCode(runtime.writeFiles(handle, [{ path: "links/etc-dir/evil", content: "x" }]), "INVALID_REQUEST");
  await expectCode(runtime.listDir(handle, "links/up"), "INVALID_REQUEST");
  await expectCode(runtime.mkdir(handle, "links/up/new"), "INVALID_REQUEST");
  // stat and remove act on a final symlink itself, so only its parent must stay inside.
  assert.equal((await runtime.stat(handle, "links/etc-file")).name, "etc-file");
  await runtime.writeFiles(handle, [{ path: "links/inside/ok.txt", content: "fine" }]);
  assert.equal(text(await runtime.readFile(handle, "ok.txt")), "fine");
  await runtime.remove(handle, "links/etc-file");
  await expectCode(runtime.stat(handle, "links/etc-file"), "NOT_FOUND");
});

test("listDir, stat, mkdir and remove translate E2B entries into workspace-relative FileInfo", async () => {
  const handle = await runtime.launch();
  await runtime.mkdir(handle, "a/b/c");
  await runtime.mkdir(handle, "a/b/c");
  await runtime.writeFiles(handle, [{ path: "a/file.txt", content: "12345" }]);
  const listed = await runtime.listDir(handle, "a");
  assert.deepEqual(listed.map((entry) => [entry.name, entry.path, entry.kind]).sort(), [
    ["b", "a/b", "directory"],
    ["file.txt", "a/file.txt", "file"],
  ]);
  const info = await runtime.stat(handle, "a/file.txt");
  assert.deepEqual([info.size, info.mode], [5, 0o644]);
  assert.match(info.modifiedAt ?? "", /^\d{4}-/);
  assert.equal((await runtime.stat(handle, ".")).path, "");
  await runtime.remove(handle, "a");
  await runtime.remove(handle, "a");
  await expectCode(runtime.stat(handle, "a"), "NOT_FOUND");
  await expectCode(runtime.listDir(handle, "a"), "NOT_FOUND");
  const missing = await expectCode(runtime.readFile(handle, "missing.txt"), "NOT_FOUND");
  assert.equal(missing.details.path, `${ROOT}/missing.txt`);
});

test("file calls map provider failures (retryable where repeating is safe)", async () => {
  const handle = await runtime.launch();
  emulator.injectFault({ route: "POST /files", fault: { kind: "status", status: 500 } });
  const error = await expectCode(runtime.writeFiles(handle, [{ path: "x", content: "y" }]), "PROVIDER_UNAVAILABLE");
  assert.equal(error.retryable, true);
  assert.equal(error.details.operation, "writeFiles");
  assert.equal(error.details.sandboxId, handle.id);
  emulator.injectFault({ route: "GET /files", fault: { kind: "status", status: 429 } });
  await expectCode(runtime.readFile(handle, "x"), "RATE_LIMITED");
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
  assert.deepEqual(
    emulator.requests.map((request) => request.route),
    [START],
    "one command resolves, checks and prints the file",
  );
  emulator.resetRequests();
  assert.deepEqual(await runtime.readFile(handle, "large.bin"), large);
  assert.deepEqual(
    emulator.requests.map((request) => request.route),
    [START, "GET /files"],
  );
  emulator.resetRequests();
  const refused = await expectCode(runtime.readFile(handle, "large.bin", { maxBytes: 1000 }), "OUTPUT_LIMIT");
  assert.deepEqual(refused.details, { path: `${ROOT}/large.bin`, size: large.byteLength, limit: 1000 });
  assert.deepEqual(
    emulator.requests.map((request) => request.route),
    [START],
    "refused on the size the command printed, nothing downloaded",
  );
  const missing = await expectCode(runtime.readFile(handle, "missing.txt"), "NOT_FOUND");
  assert.equal(missing.details.path, `${ROOT}/missing.txt`);
});
