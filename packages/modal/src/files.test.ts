// writeFiles, readFile and the file operations through the real modal SDK
// (its in-sandbox file helper) against the Modal emulator: binary-exact,
// modes, typed errors, the symlink guard once a command has run, and paths
// refused before any request.
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectCode } from "@sandport/testkit/assertions";
import { emulated } from "../test/emulated.js";

const ROUTER = "rpc modal.task_command_router.TaskCommandRouter/";

const { emulator, runtime } = await emulated({ owner: "files-tests" });

test("writes and reads bytes exactly; each file is one helper exec; no guard while no command has run", async () => {
  const handle = await runtime.launch();
  const bytes = Uint8Array.from({ length: 256 }, (_, index) => index);
  emulator.resetRequests();
  await runtime.writeFiles(handle, [
    { path: "bin/all.bin", content: bytes },
    { path: "deep/a/b/c.txt", content: "é\n" },
  ]);
  assert.equal(emulator.countRequests(`${ROUTER}TaskExecStart`), 2, "one helper exec per file, nothing else");
  assert.deepEqual(await runtime.readFile(handle, "bin/all.bin"), bytes);
  assert.equal(new TextDecoder().decode(await runtime.readFile(handle, "/workspace/deep/a/b/c.txt")), "é\n");
  await runtime.destroy(handle);
});

test("20 files are one command with the archive on its stdin: 6 requests, modes and bytes exact", async () => {
  const handle = await runtime.launch();
  const files = Array.from({ length: 20 }, (_, index) => ({
    path: `src/f${String(index).padStart(2, "0")}.txt`,
    content: `${index}`.padEnd(1024, "."),
    ...(index === 7 ? { mode: 0o755 } : {}),
  }));
  const binary = Uint8Array.from({ length: 256 }, (_, index) => 255 - index);
  files[3] = { path: 'src/with space/it\'s "ü" $x.bin', content: binary as never };
  emulator.resetRequests();
  await runtime.writeFiles(handle, files);
  const routes = emulator.requests.map((request) => request.route.replace(ROUTER, ""));
  assert.deepEqual(routes.filter((route) => route === "TaskExecStart").length, 1, routes.join(", "));
  assert.equal(routes.length, 6, `start, stdin, its end, two output streams, wait: ${routes.join(", ")}`);
  assert.deepEqual(await runtime.readFile(handle, 'src/with space/it\'s "ü" $x.bin'), binary);
  assert.equal(new TextDecoder().decode(await runtime.readFile(handle, "src/f19.txt")), files[19]?.content);
  assert.equal((await runtime.stat(handle, "src/f07.txt")).mode, 0o755);
  assert.equal((await runtime.stat(handle, "src/f08.txt")).mode, 0o644);
  await runtime.destroy(handle);
});

test("an archive is guarded like a file: a symlink out refuses the batch, nothing written", async () => {
  const handle = await runtime.launch();
  await runtime.exec(handle, { shell: "ln -s /tmp out" });
  emulator.resetRequests();
  const batch = ["a.txt", "out/escaped.txt", "b.txt"].map((path) => ({ path, content: path }));
  await expectCode(runtime.writeFiles(handle, batch), "INVALID_REQUEST");
  assert.equal(emulator.countRequests(`${ROUTER}TaskExecStart`), 1, "the guard ran, the archive did not");
  const probe = await runtime.exec(handle, { shell: "test ! -e a.txt && test ! -e /tmp/escaped.txt" });
  assert.equal(probe.exitCode, 0);
  await runtime.destroy(handle);
});

test("modes other than 0644 are set with one chmod; listDir and stat report kind, size and mode", async () => {
  const handle = await runtime.launch();
  await runtime.writeFiles(handle, [
    { path: "run.sh", content: "#!/bin/sh\necho ran\n", mode: 0o755 },
    { path: "secret.txt", content: "s", mode: 0o600 },
    { path: "plain.txt", content: "plain" },
  ]);
  assert.equal((await runtime.exec(handle, { argv: ["./run.sh"] })).stdout, "ran\n");
  const info = await runtime.stat(handle, "secret.txt");
  assert.deepEqual(
    [info.name, info.path, info.kind, info.size, info.mode],
    ["secret.txt", "secret.txt", "file", 1, 0o600],
  );
  assert.ok(info.modifiedAt && Math.abs(Date.parse(info.modifiedAt) - Date.now()) < 120_000);
  await runtime.mkdir(handle, "made/inner");
  await runtime.mkdir(handle, "made/inner");
  const entries = (await runtime.listDir(handle, "")).filter((entry) => !entry.name.startsWith("."));
  assert.deepEqual(entries.map((entry) => [entry.name, entry.kind]).sort(), [
    ["made", "directory"],
    ["plain.txt", "file"],
    ["run.sh", "file"],
    ["secret.txt", "file"],
  ]);
  assert.equal(entries.find((entry) => entry.name === "run.sh")?.mode, 0o755);
  await runtime.remove(handle, "made");
  await runtime.remove(handle, "made");
  await expectCode(runtime.stat(handle, "made"), "NOT_FOUND");
  await runtime.destroy(handle);
});

test("missing files and wrong kinds are typed errors", async () => {
  const handle = await runtime.launch();
  await runtime.mkdir(handle, "dir");
  await expectCode(runtime.readFile(handle, "missing.txt"), "NOT_FOUND");
  await expectCode(runtime.readFile(handle, "dir"), "INVALID_REQUEST");
  await expectCode(runtime.listDir(handle, "missing"), "NOT_FOUND");
  await runtime.destroy(handle);
});

test("once a command has run, a path that leaves the workspace through a symlink is refused", async () => {
  const handle = await runtime.launch();
  await runtime.exec(handle, {
    shell: "ln -s / escape && ln -s /etc/hostname host && mkdir inside && ln -s inside ok",
  });
  emulator.resetRequests();
  await expectCode(runtime.readFile(handle, "escape/etc/hostname"), "INVALID_REQUEST");
  await expectCode(runtime.readFile(handle, "host"), "INVALID_REQUEST");
  await expectCode(runtime.writeFiles(handle, [{ path: "escape/tmp/x", content: "x" }]), "INVALID_REQUEST");
  await expectCode(runtime.listDir(handle, "escape"), "INVALID_REQUEST");
  assert.equal(emulator.countRequests(`${ROUTER}TaskExecStart`), 4, "each refused call ran its guard and no helper");
  const link = await runtime.stat(handle, "host");
  assert.equal(link.kind, "symlink", "stat reports a symlink as itself");
  await runtime.writeFiles(handle, [{ path: "ok/through-link.txt", content: "inside" }]);
  assert.equal(new TextDecoder().decode(await runtime.readFile(handle, "inside/through-link.txt")), "inside");
  await runtime.destroy(handle);
});

test("paths outside the workspace are refused before any request", async () => {
  const handle = await runtime.launch();
  emulator.resetRequests();
  await expectCode(runtime.readFile(handle, "../etc/passwd"), "INVALID_REQUEST");
  await expectCode(runtime.readFile(handle, "/etc/passwd"), "INVALID_REQUEST");
  await expectCode(
    runtime.writeFiles(handle, [
      { path: "a", content: "x" },
      { path: "../b", content: "x" },
    ]),
    "INVALID_REQUEST",
  );
  await expectCode(runtime.writeFiles(handle, [{ path: "a", content: 3 as never }]), "INVALID_REQUEST");
  await expectCode(runtime.remove(handle, ""), "INVALID_REQUEST");
  assert.equal(emulator.countRequests(), 0);
  await runtime.destroy(handle);
});

test("once a command has run, a read is one guarded command; a file past 256 KiB is that command, then the helper", async () => {
  const handle = await runtime.launch();
  const bytes = Uint8Array.from({ length: 256 }, (_, index) => index);
  const large = new Uint8Array(256 * 1024 + 1).fill(7);
  await runtime.writeFiles(handle, [
    { path: "bin/all.bin", content: bytes },
    { path: "large.bin", content: large },
  ]);
  await runtime.exec(handle, { argv: ["true"] });
  const routes = () => emulator.requests.map((request) => request.route.replace(ROUTER, "")).sort();
  // One exec is its start, its two output streams, its wait and the close of its stdin.
  const command = ["TaskExecStart", "TaskExecStdinWrite", "TaskExecStdioRead", "TaskExecStdioRead", "TaskExecWait"];
  emulator.resetRequests();
  assert.deepEqual(await runtime.readFile(handle, "bin/all.bin"), bytes);
  assert.deepEqual(routes(), command, "one command resolves, checks and prints the file: no helper exec");
  emulator.resetRequests();
  assert.deepEqual(await runtime.readFile(handle, "large.bin"), large);
  assert.equal(emulator.countRequests(`${ROUTER}TaskExecStart`), 2, "the command, then the file helper");
  emulator.resetRequests();
  const refused = await expectCode(runtime.readFile(handle, "large.bin", { maxBytes: 1000 }), "OUTPUT_LIMIT");
  assert.deepEqual(refused.details, { path: "/workspace/large.bin", size: large.byteLength, limit: 1000 });
  assert.deepEqual(routes(), command, "refused on the size the command printed");
  await expectCode(runtime.readFile(handle, "missing.txt"), "NOT_FOUND");
  await runtime.destroy(handle);
});
