// The driver's contract: Flue's own sandbox (sandboxFromDriver) over the
// bridge, and the refusals (Flue's SandboxOperationUnsupportedError, before
// anything changes) on runtimes that lack a method.
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { SandboxDiedError, SandboxOperationUnsupportedError, sandboxFromDriver } from "@flue/runtime";
import { SandportError, TIMED_OUT_EXIT_STATUS } from "@sandport/core";
import { localTestRuntime, namespacesSkipReason, RecordingRuntime, withoutMethods } from "@sandport/testkit/fakes";
import { SandportFlueDriver, sandportSandbox } from "./index.js";

/** Why the tests that assert what only a namespaced sandbox shows (its `/workspace`, its loopback) skip here, if they do. */
const namespacesOnly = await namespacesSkipReason();

const local = await localTestRuntime("flue-driver");
after(() => local.cleanup());
const notFound = (error: unknown) => SandportError.hasCode(error, "NOT_FOUND");
const invalid = (error: unknown) => SandportError.hasCode(error, "INVALID_REQUEST");

describe("SandportFlueDriver", () => {
  test("files through Flue's own sandbox: write, read, stat, readdir, exists, mkdir, rm", async () => {
    const handle = await local.runtime.launch({});
    try {
      const root = local.runtime.workspaceRoot;
      const sandbox = sandboxFromDriver(new SandportFlueDriver(local.runtime, handle), root);
      await sandbox.writeFile("src/a.txt", "alpha");
      await sandbox.writeFile("src/b.bin", new Uint8Array([0, 255]));
      assert.equal(await sandbox.readFile(`${root}/src/a.txt`), "alpha");
      assert.deepEqual([...(await sandbox.readFileBuffer("src/b.bin"))], [0, 255]);
      assert.deepEqual((await sandbox.readdir("src")).sort(), ["a.txt", "b.bin"]);
      const stat = await sandbox.stat("src/a.txt");
      assert.deepEqual([stat.isFile, stat.isDirectory, stat.size], [true, false, 5]);
      assert.equal(await sandbox.exists("src/nope"), false);
      await sandbox.mkdir("x/y/z", { recursive: true });
      await assert.rejects(sandbox.mkdir("p/q"), notFound);
      await assert.rejects(sandbox.mkdir("x/y"), invalid);
      await sandbox.mkdir("x/y/w");
      assert.equal((await sandbox.stat("x/y/w")).isDirectory, true);
      await assert.rejects(sandbox.rm("x"), invalid);
      await assert.rejects(sandbox.rm("gone"), notFound);
      await sandbox.rm("gone", { force: true });
      await sandbox.rm("src/a.txt");
      await sandbox.rm("x", { recursive: true });
      assert.equal(await sandbox.exists("x"), false);
      assert.equal(await sandbox.exists("src/a.txt"), false);
    } finally {
      await local.runtime.destroy(handle);
    }
  });

  test("stat follows symlinks as Flue's local() does (stat -L); a dangling link is not found and does not exist", async () => {
    const handle = await local.runtime.launch({});
    try {
      const driver = new SandportFlueDriver(local.runtime, handle);
      await driver.writeFile("links/file.txt", "12345");
      await driver.mkdir("links/dir", { recursive: true });
      const made = await driver.exec(
        "ln -s file.txt links/to-file && ln -s dir links/to-dir && ln -s nowhere links/dangling",
      );
      assert.equal(made.exitCode, 0, made.stderr);
      const toFile = await driver.stat("links/to-file");
      assert.deepEqual([toFile.isFile, toFile.isDirectory, toFile.isSymbolicLink, toFile.size], [true, false, true, 5]);
      const plain = await driver.stat("links/file.txt");
      assert.deepEqual([plain.isFile, plain.isSymbolicLink], [true, false]);
      // The target's modification time, to the second stat -L reports.
      assert.equal(toFile.mtime?.getTime(), Math.floor((plain.mtime?.getTime() ?? 0) / 1000) * 1000);
      const toDirectory = await driver.stat("links/to-dir");
      assert.deepEqual([toDirectory.isFile, toDirectory.isDirectory, toDirectory.isSymbolicLink], [false, true, true]);
      await assert.rejects(driver.stat("links/dangling"), notFound);
      assert.equal(await driver.exists("links/dangling"), false);
      assert.equal(await driver.exists("links/to-file"), true);
      // A directory made through a link to a directory, as fs.mkdir does.
      await driver.mkdir("links/to-dir/made");
      assert.equal((await driver.stat("links/dir/made")).isDirectory, true);
      // rm acts on the link itself, dangling or not.
      await driver.rm("links/dangling");
      await driver.rm("links/to-file");
      assert.equal(await driver.readFile("links/file.txt"), "12345");
    } finally {
      await local.runtime.destroy(handle);
    }
  });

  test("exec: cwd, env, exit codes; killed at its time limit 124 (the driver's limit by default), an abort rejects", {
    skip: namespacesOnly,
  }, async () => {
    const handle = await local.runtime.launch({});
    const driver = new SandportFlueDriver(local.runtime, handle, { commandTimeoutMs: 200 });
    try {
      await driver.mkdir("sub", { recursive: true });
      assert.deepEqual(await driver.exec('echo "$X in $PWD"; exit 2', { cwd: "sub", env: { X: "hi" } }), {
        stdout: `hi in ${local.runtime.workspaceRoot}/sub\n`,
        stderr: "",
        exitCode: 2,
      });
      const expired = await driver.exec("echo started; sleep 5");
      assert.deepEqual(expired, {
        stdout: "started\n",
        stderr: "command timed out after 200 ms\n",
        exitCode: TIMED_OUT_EXIT_STATUS,
      });
      assert.equal((await driver.exec("sleep 0.5; echo late", { timeoutMs: 5_000 })).stdout, "late\n");
      const abort = driver.exec("sleep 5", { timeoutMs: 5_000, signal: AbortSignal.timeout(200) });
      await assert.rejects(abort, (error) => SandportError.hasCode(error, "ABORTED"));
    } finally {
      await local.runtime.destroy(handle);
    }
    await assert.rejects(driver.exec("true"), SandboxDiedError);
  });

  test("options the runtime cannot honour are Flue's unsupported error, and nothing is sent", async () => {
    const runtime = new RecordingRuntime();
    const handle = await runtime.launch({});
    const driver = new SandportFlueDriver(runtime, handle);
    const before = runtime.calls.length;
    for (const call of [
      () => driver.stat("a"),
      () => driver.readdir("."),
      () => driver.exists("a"),
      () => driver.mkdir("a", { recursive: true }),
      () => driver.rm("a", { recursive: true, force: true }),
    ]) {
      await assert.rejects(call(), SandboxOperationUnsupportedError);
    }
    assert.equal(runtime.calls.length, before);
    // With remove but no stat, only the exact port semantics pass: recursive + force.
    const noStat = new SandportFlueDriver(withoutMethods(local.runtime, ["stat"]), await local.runtime.launch({}));
    try {
      await assert.rejects(noStat.rm("a"), SandboxOperationUnsupportedError);
      await noStat.rm("a", { recursive: true, force: true });
    } finally {
      await local.runtime.destroy(noStat.handle);
    }
  });

  test("a factory with a handle gives every harness that sandbox, relative paths under its working directory", async () => {
    const handle = await local.runtime.launch({});
    try {
      const factory = sandportSandbox({ runtime: local.runtime, handle, workingDirectory: "app" });
      await (await factory.createSandbox({ id: "one" })).writeFile("shared.txt", "1");
      assert.equal(await (await factory.createSandbox({ id: "two" })).readFile("shared.txt"), "1");
      assert.equal(new TextDecoder().decode(await local.runtime.readFile(handle, "app/shared.txt")), "1");
    } finally {
      await local.runtime.destroy(handle);
    }
  });
});
