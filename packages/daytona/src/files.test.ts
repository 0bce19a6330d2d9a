// writeFiles and readFile through the real SDK's bulk transfers against the
// Daytona emulator: one request for many files, bytes exact, modes applied,
// and a symlink guard wherever a command may have made symlinks.
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectCode } from "@sandport/testkit/assertions";
import { emulated } from "../test/emulated.js";

const UPLOAD = "POST /toolbox/:id/files/bulk-upload";
const DOWNLOAD = "POST /toolbox/:id/files/bulk-download";
const EXECUTE = "POST /toolbox/:id/process/execute";

const { emulator, runtime } = await emulated({ owner: "files-tests" });
const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

test("writeFiles sends every file in one upload; readFile is one download, binary-exact", async () => {
  const handle = await runtime.launch();
  const files = Array.from({ length: 20 }, (_, index) => ({
    path: `deep/n${index % 3}/f${index}.txt`,
    content: `${index}`,
  }));
  const bytes = Uint8Array.from({ length: 256 }, (_, index) => index);
  emulator.resetRequests();
  await runtime.writeFiles(handle, [...files, { path: "bin/all.bin", content: bytes }]);
  await runtime.writeFiles(handle, []);
  assert.deepEqual(
    emulator.requests.map((request) => request.route),
    [UPLOAD],
    "one request, parents made by Daytona",
  );
  emulator.resetRequests();
  assert.deepEqual(await runtime.readFile(handle, "bin/all.bin"), bytes);
  assert.equal(decode(await runtime.readFile(handle, `${runtime.workspaceRoot}/deep/n1/f19.txt`)), "19");
  assert.deepEqual(
    emulator.requests.map((request) => request.route),
    [DOWNLOAD, DOWNLOAD],
    "no guard while only this runtime's writes have touched the sandbox",
  );
  await expectCode(runtime.readFile(handle, "missing.txt"), "NOT_FOUND");
  await expectCode(runtime.readFile(handle, "deep"), "INVALID_REQUEST");
});

test("modes other than 0o644 are set by one chmod command", async () => {
  const handle = await runtime.launch();
  emulator.resetRequests();
  await runtime.writeFiles(handle, [
    { path: "run.sh", content: "#!/bin/sh\necho ran\n", mode: 0o755 },
    { path: "secret.txt", content: "s", mode: 0o600 },
    { path: "plain.txt", content: "p" },
  ]);
  assert.deepEqual(
    emulator.requests.map((request) => request.route),
    [UPLOAD, EXECUTE],
  );
  assert.equal((await runtime.exec(handle, { argv: ["./run.sh"] })).stdout, "ran\n");
  const modes = await runtime.exec(handle, { shell: "stat -c '%a %n' run.sh secret.txt plain.txt" });
  assert.equal(modes.stdout, "755 run.sh\n600 secret.txt\n644 plain.txt\n");
});

test("once a command has run, a transfer is guarded: symlinks out of the workspace are refused before it", async () => {
  const handle = await runtime.launch();
  await runtime.exec(handle, {
    shell: "mkdir -p links && ln -s /etc links/etc && ln -s ../.. links/up && echo in > inside.txt",
  });
  emulator.resetRequests();
  assert.equal(decode(await runtime.readFile(handle, "inside.txt")), "in\n");
  assert.deepEqual(
    emulator.requests.map((request) => request.route),
    [EXECUTE],
    "one command resolves, checks and prints the file",
  );
  emulator.resetRequests();
  await expectCode(runtime.readFile(handle, "links/etc/hostname"), "INVALID_REQUEST");
  await expectCode(runtime.writeFiles(handle, [{ path: "links/up/escaped.txt", content: "x" }]), "INVALID_REQUEST");
  assert.equal(emulator.countRequests(DOWNLOAD) + emulator.countRequests(UPLOAD), 0, "nothing was transferred");
});

test("paths that escape are refused before any request; a 5xx on a transfer is retried, a persistent one typed", async () => {
  const handle = await runtime.launch();
  emulator.resetRequests();
  for (const path of ["../x", "/etc/passwd", "%2e%2e/x", "a\u0000b"]) {
    await expectCode(runtime.readFile(handle, path), "INVALID_REQUEST", path);
    await expectCode(runtime.writeFiles(handle, [{ path, content: "x" }]), "INVALID_REQUEST", path);
  }
  assert.equal(emulator.countRequests(), 0);
  emulator.injectFault({ route: UPLOAD, fault: { kind: "status", status: 502 } });
  await runtime.writeFiles(handle, [{ path: "retried.txt", content: "ok" }]);
  emulator.injectFault({ route: DOWNLOAD, fault: { kind: "status", status: 503 }, times: 3 });
  await expectCode(runtime.readFile(handle, "retried.txt"), "PROVIDER_UNAVAILABLE");
  assert.equal(decode(await runtime.readFile(handle, "retried.txt")), "ok");
});

test("once a command has run, a file past 256 KiB is the guarded read command, then the download", async () => {
  const handle = await runtime.launch();
  const large = new Uint8Array(256 * 1024 + 1).fill(7);
  await runtime.writeFiles(handle, [{ path: "large.bin", content: large }]);
  await runtime.exec(handle, { argv: ["mkdir", "directory"] });
  emulator.resetRequests();
  assert.deepEqual(await runtime.readFile(handle, "large.bin"), large);
  assert.deepEqual(
    emulator.requests.map((request) => request.route),
    [EXECUTE, DOWNLOAD],
  );
  emulator.resetRequests();
  const refused = await expectCode(runtime.readFile(handle, "large.bin", { maxBytes: 1000 }), "OUTPUT_LIMIT");
  assert.deepEqual(refused.details, {
    path: `${runtime.workspaceRoot}/large.bin`,
    size: large.byteLength,
    limit: 1000,
  });
  assert.deepEqual(
    emulator.requests.map((request) => request.route),
    [EXECUTE],
    "refused on the size the command printed, nothing downloaded",
  );
  await expectCode(runtime.readFile(handle, "missing.txt"), "NOT_FOUND");
  // A directory is left to the download, which Daytona refuses as it did before.
  await expectCode(runtime.readFile(handle, "directory"), "INVALID_REQUEST");
});
