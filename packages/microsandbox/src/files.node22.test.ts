// Files through the SDK's filesystem calls: what a batch costs, the symlink
// guard (skipped only while nothing but this runtime has touched a sandbox),
// large binary files, and the file operations' edges.
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectCode } from "@sandport/testkit/assertions";
import { emulated } from "../test/emulated.js";
import { deepestDirectories } from "./files.js";

const { emulator, runtime } = await emulated({ owner: "files" });

const operations = () => emulator.agentOperations.map((operation) => operation.operation);

test("one file: a mkdir for its directory, one write; no guard before any command has run", async () => {
  const handle = await runtime.launch();
  emulator.resetRequests();
  await runtime.writeFiles(handle, [{ path: "a/b/c/three.txt", content: "3" }]);
  const ops = operations();
  assert.equal(ops.filter((operation) => operation === "core.fs.request Mkdir").length, 1);
  assert.equal(ops.filter((operation) => operation === "core.fs.request OpenFile").length, 1);
  assert.ok(!ops.includes("core.exec.request"), "a pristine sandbox needs no symlink guard");
  await runtime.exec(handle, { argv: ["true"] });
  emulator.resetRequests();
  assert.equal(new TextDecoder().decode(await runtime.readFile(handle, "a/b/c/three.txt")), "3");
  assert.deepEqual(operations(), ["core.exec.request"], "one command resolves, checks and prints the file");
  await runtime.destroy(handle);
  assert.deepEqual(deepestDirectories(["x/y/z.txt", "x/w.txt", "x-y/q.txt", "r.txt"]), ["x-y", "x/y"]);
});

test("20 files are one command with the archive on its stdin: one agent session, 2 requests", async () => {
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
    ["GET /v1/sandboxes/by-name/:name", "GET /v1/sandboxes/:id/agent"],
  );
  assert.deepEqual(
    operations().filter((operation) => operation.startsWith("core.fs")),
    [],
    "no file call",
  );
  assert.equal(new TextDecoder().decode(await runtime.readFile(handle, "src/1/f19.txt")), files[19]?.content);
  assert.equal((await runtime.stat(handle, "src/1/f07.txt")).mode, 0o755);
  assert.equal((await runtime.stat(handle, "src/2/f08.txt")).mode, 0o644);
  await expectCode(
    runtime.writeFiles(handle, [
      { path: "src/1", content: "a directory" },
      { path: "other.txt", content: "x" },
    ]),
    "INVALID_REQUEST",
  );
  await runtime.destroy(handle);
});

test("7 MiB of every byte value round-trips in an archive, with the other files' modes", async () => {
  const handle = await runtime.launch();
  const big = new Uint8Array(7 * 1024 * 1024 + 3).map((_, index) => (index * 31) & 0xff);
  await runtime.writeFiles(handle, [
    { path: "big.bin", content: big },
    { path: "bin/run.sh", content: "#!/bin/sh\necho ran\n", mode: 0o755 },
    { path: "secret", content: "s", mode: 0o600 },
  ]);
  assert.deepEqual(await runtime.readFile(handle, "big.bin"), big);
  assert.equal((await runtime.exec(handle, { argv: ["./bin/run.sh"] })).stdout, "ran\n");
  assert.equal((await runtime.stat(handle, "secret")).mode, 0o600);
  assert.equal((await runtime.stat(handle, "big.bin")).mode, 0o644);
  await runtime.destroy(handle);
});

test("stat reports a symlink as itself; remove takes files, links and trees; a directory is not a file", async () => {
  const handle = await runtime.launch();
  await runtime.writeFiles(handle, [{ path: "d/f.txt", content: "f" }]);
  await runtime.exec(handle, { shell: "ln -s f.txt d/link && mkdir -p d/sub/deeper" });
  assert.deepEqual(
    (await runtime.listDir(handle, "d")).map(({ name, kind }) => `${kind} ${name}`),
    ["file f.txt", "symlink link", "directory sub"],
  );
  assert.equal((await runtime.stat(handle, "d/link")).kind, "symlink");
  assert.deepEqual(await runtime.stat(handle, "."), {
    ...(await runtime.stat(handle, ".")),
    path: "",
    kind: "directory",
  });
  await runtime.remove(handle, "d/link");
  assert.equal((await runtime.stat(handle, "d/f.txt")).kind, "file", "removing a link leaves its target");
  await runtime.remove(handle, "d/sub");
  await expectCode(runtime.stat(handle, "d/sub"), "NOT_FOUND");
  await expectCode(runtime.readFile(handle, "d"), "INVALID_REQUEST");
  await expectCode(runtime.writeFiles(handle, [{ path: "d", content: "x" }]), "INVALID_REQUEST");
  await expectCode(runtime.mkdir(handle, "d/f.txt"), "INVALID_REQUEST");
  await runtime.destroy(handle);
});

test("once a command has run, a read is one agent session; a file past 256 KiB is the command, then the read", async () => {
  const handle = await runtime.launch();
  const large = new Uint8Array(256 * 1024 + 1).fill(7);
  await runtime.writeFiles(handle, [
    { path: "small.txt", content: "small" },
    { path: "large.bin", content: large },
  ]);
  await runtime.exec(handle, { argv: ["true"] });
  emulator.resetRequests();
  const sessions = () => emulator.requests.filter((request) => request.route === "GET /v1/sandboxes/:id/agent").length;
  assert.equal(new TextDecoder().decode(await runtime.readFile(handle, "small.txt")), "small");
  const one = emulator.requests.length;
  assert.equal(sessions(), 1, "one agent session: the command");
  emulator.resetRequests();
  assert.deepEqual(await runtime.readFile(handle, "large.bin"), large);
  assert.equal(sessions(), 2, "the command, then the streamed read");
  assert.ok(operations().includes("core.fs.request OpenFile"));
  emulator.resetRequests();
  const refused = await expectCode(runtime.readFile(handle, "large.bin", { maxBytes: 1000 }), "OUTPUT_LIMIT");
  assert.equal(refused.details.size, large.byteLength, "refused on the size the command printed");
  assert.equal(emulator.requests.length, one);
  assert.deepEqual(operations(), ["core.exec.request"]);
  await expectCode(runtime.readFile(handle, "missing.txt"), "NOT_FOUND");
  await runtime.destroy(handle);
});
