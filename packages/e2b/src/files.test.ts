import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import type { E2BWriteEntry } from "./internal/sdk-types.js";
import { rejectsWithCode } from "./testing/assertions.js";
import { sdkErrors } from "./testing/fake-e2b.js";
import { type FakeSetup, fakeSetup } from "./testing/setup.js";

let setup: FakeSetup | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

test("writeFiles sends all files in one batched upload; reads are binary-exact", async () => {
  setup = await fakeSetup();
  const { runtime, fake, workspaceRoot } = setup;
  const handle = await runtime.launch();
  const files = Array.from({ length: 20 }, (_, index) => ({ path: `src/f${index}.txt`, content: `file ${index}` }));
  const bytes = Uint8Array.from({ length: 256 }, (_, index) => index);
  await runtime.writeFiles(handle, [...files, { path: `${workspaceRoot}/bin/all.bin`, content: bytes }]);
  const writes = fake.callsOf("files.write");
  assert.equal(writes.length, 1, "one request for 21 files");
  const entries = writes[0]?.args[0] as E2BWriteEntry[];
  assert.equal(entries.length, 21);
  assert.equal(entries[0]?.path, `${workspaceRoot}/src/f0.txt`);
  assert.deepEqual(await runtime.readFile(handle, "bin/all.bin"), bytes);
  assert.equal(new TextDecoder().decode(await runtime.readFile(handle, "src/f19.txt")), "file 19");
  assert.deepEqual(await runtime.readFile(handle, `${workspaceRoot}/src/f0.txt`), new TextEncoder().encode("file 0"));
});

test("modes other than 0o644 are applied with one chmod command", async () => {
  setup = await fakeSetup();
  const { runtime, fake } = setup;
  const handle = await runtime.launch();
  await runtime.writeFiles(handle, [
    { path: "run.sh", content: "#!/bin/sh\necho ran\n", mode: 0o755 },
    { path: "plain.txt", content: "x" },
    { path: "same.txt", content: "x", mode: 0o644 },
  ]);
  const commands = fake.callsOf("commands.run").map((call) => call.args[0]);
  assert.deepEqual(commands, ["chmod 0755 -- run.sh"]);
  const result = await runtime.exec(handle, { argv: ["./run.sh"] });
  assert.equal(result.stdout, "ran\n");
});

test("escaping paths are refused before any call, and a bad entry writes nothing", async () => {
  setup = await fakeSetup();
  const { runtime, fake } = setup;
  const handle = await runtime.launch();
  const before = fake.calls.length;
  for (const path of ["../x", "/etc/passwd", "a/%2e%2e/%2e%2e/x", "a\u0000b"]) {
    await rejectsWithCode(runtime.readFile(handle, path), "INVALID_REQUEST");
    await rejectsWithCode(
      runtime.writeFiles(handle, [
        { path: "ok.txt", content: "" },
        { path, content: "" },
      ]),
      "INVALID_REQUEST",
    );
    await rejectsWithCode(runtime.listDir(handle, path), "INVALID_REQUEST");
  }
  await rejectsWithCode(runtime.remove(handle, "."), "INVALID_REQUEST");
  assert.equal(fake.calls.length, before);
});

test("symlinks that lead out of the workspace are refused once a command has run", async () => {
  setup = await fakeSetup();
  const { runtime, fake } = setup;
  const handle = await runtime.launch();
  await runtime.writeFiles(handle, [{ path: "first.txt", content: "1" }]);
  assert.equal(fake.callsOf("commands.run").length, 0, "a fresh sandbox needs no symlink check");
  const made = await runtime.exec(handle, {
    shell:
      "mkdir -p links && ln -s /etc links/etc-dir && ln -s /etc/hostname links/etc-file && ln -s ../.. links/up && ln -s .. links/inside",
  });
  assert.equal(made.exitCode, 0);
  for (const path of ["links/etc-file", "links/etc-dir/hostname", "links/up/etc/hostname"]) {
    await rejectsWithCode(runtime.readFile(handle, path), "INVALID_REQUEST");
  }
  await rejectsWithCode(runtime.writeFiles(handle, [{ path: "links/etc-dir/evil", content: "x" }]), "INVALID_REQUEST");
  await rejectsWithCode(runtime.listDir(handle, "links/up"), "INVALID_REQUEST");
  // stat and remove act on a final symlink itself, so only its parent must stay inside.
  assert.equal((await runtime.stat(handle, "links/etc-file")).name, "etc-file");
  await runtime.writeFiles(handle, [{ path: "links/inside/ok.txt", content: "fine" }]);
  assert.equal(new TextDecoder().decode(await runtime.readFile(handle, "ok.txt")), "fine");
  await runtime.remove(handle, "links/etc-file");
});

test("listDir, stat, mkdir and remove translate E2B entries into workspace-relative FileInfo", async () => {
  setup = await fakeSetup();
  const { runtime } = setup;
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
  assert.equal(info.size, 5);
  assert.equal(info.mode, 0o644);
  assert.match(info.modifiedAt ?? "", /^\d{4}-/);
  assert.equal((await runtime.stat(handle, ".")).path, "");
  await runtime.remove(handle, "a");
  await runtime.remove(handle, "a");
  await rejectsWithCode(runtime.stat(handle, "a"), "NOT_FOUND");
  await rejectsWithCode(runtime.listDir(handle, "a"), "NOT_FOUND");
  await rejectsWithCode(runtime.readFile(handle, "missing.txt"), "NOT_FOUND");
});

test("file calls map provider failures (retryable where repeating is safe)", async () => {
  setup = await fakeSetup();
  const { runtime, fake } = setup;
  const handle = await runtime.launch();
  fake.fail("files.write", sdkErrors.serviceBusy);
  const error = await rejectsWithCode(
    runtime.writeFiles(handle, [{ path: "x", content: "y" }]),
    "PROVIDER_UNAVAILABLE",
  );
  assert.equal(error.retryable, true);
  assert.equal(error.details.operation, "writeFiles");
  fake.fail("files.read", sdkErrors.rateLimited);
  await rejectsWithCode(runtime.readFile(handle, "x"), "RATE_LIMITED");
});
