// resources.diskMiB: a bounded workspace is a loop-mounted ext4 image, made at launch and gone with destroy.
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { closeSync, existsSync, openSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { SandportError } from "@sandport/core";
import { LocalRuntime, type LocalRuntimeOptions } from "../index.js";
import { bwrapSkipReason, temporaryDirectory } from "../runtime.fixture.js";
import { remountWorkspace } from "../sandboxes/bounded-workspace.js";
import { SandboxStore } from "../store/sandbox-store.js";
import { diskSupport } from "./disk-support.js";
import { DISK_IMAGE, DISK_MOUNT, loopDevicesOf, mountedAt } from "./workspace-disk.js";

const root = temporaryDirectory("disk-bound");
after(async () => {
  // Should a test fail midway, nothing it mounted stays mounted.
  const table = readFileSync("/proc/self/mountinfo", "utf8").split("\n");
  for (const mountPoint of table.map((line) => line.split(" ")[4] ?? "")) {
    if (mountPoint.startsWith(`${root.path}/`)) execFileSync("/usr/bin/umount", [mountPoint]);
  }
  await root.remove();
});
const support = diskSupport();
const noDisk = support.ok ? undefined : `no disk bound on this host: ${support.reason}`;
const skipNamespaces = await bwrapSkipReason();

function runtime(options: LocalRuntimeOptions): LocalRuntime {
  return new LocalRuntime({ root: root.path, killGraceMs: 100, owner: "disk", ...options });
}

/** The sandbox directory of a handle's workspace (`<root>/<id>/disk/workspace`). */
function sandboxDirectory(id: string): string {
  return join(root.path, id);
}

/** Writes 1 MiB blocks until the disk refuses one; exits with dd's failure. */
const fill = "dd if=/dev/zero of=fill bs=1M count=100000 2>&1; exit 1";

for (const isolation of ["namespaces", "none"] as const) {
  const skip = noDisk ?? (isolation === "namespaces" ? skipNamespaces : undefined);
  describe(`a bounded workspace (isolation: ${isolation})`, { skip }, () => {
    test("is a file system of diskMiB: a write past it fails with ENOSPC, reported as limit disk; destroy unmounts it and removes the image", async () => {
      const rt = runtime({ isolation });
      assert.equal(rt.capabilities.diskLimit, true);
      const handle = await rt.launch({ resources: { diskMiB: 32 } });
      const directory = sandboxDirectory(handle.id);
      const image = join(directory, DISK_IMAGE);
      try {
        assert.equal(await mountedAt(join(directory, DISK_MOUNT)), true, "the image is mounted");
        assert.equal((await loopDevicesOf(image)).length, 1, "through one loop device");
        assert.ok(statSync(image).blocks * 512 < 8 * 1024 * 1024, "the image is sparse");
        const size = await rt.exec(handle, { shell: "df -k --output=size . | tail -1" });
        const kib = Number(size.stdout.trim());
        assert.ok(kib > 16 * 1024 && kib <= 32 * 1024, `the workspace's file system is at most 32 MiB: ${kib} KiB`);
        const listed = await rt.listDir(handle, "/workspace");
        assert.deepEqual(
          listed.map((entry) => entry.name),
          [".tmp"],
          "nothing of the file system shows (no lost+found)",
        );
        const full = await rt.exec(handle, { shell: fill, timeoutMs: 60_000 });
        assert.match(full.stdout, /No space left on device/, full.stdout);
        assert.equal(full.limit, "disk", JSON.stringify(full));
        const written = statSync(join(handle.workspaceDirectory, "fill")).size;
        assert.ok(written < 32 * 1024 * 1024, `no more than the bound was written: ${written}`);
        // Room again: the next command runs and reports no limit.
        await rt.remove(handle, "/workspace/fill");
        const next = await rt.exec(handle, { shell: "echo fine > ok.txt && cat ok.txt" });
        assert.deepEqual([next.exitCode, next.stdout, next.limit], [0, "fine\n", undefined]);
        const failing = await rt.exec(handle, { shell: "exit 3" });
        assert.deepEqual(
          [failing.exitCode, failing.limit],
          [3, undefined],
          "a failure with room left is no disk limit",
        );
      } finally {
        await rt.destroy(handle);
      }
      assert.equal(await mountedAt(join(directory, DISK_MOUNT)), false, "unmounted");
      assert.deepEqual(await loopDevicesOf(image), [], "its loop device is released");
      assert.equal(existsSync(directory), false, "the sandbox directory, image and all, is gone");
    });
  });
}

describe("a bounded workspace across runtimes", { skip: noDisk }, () => {
  test("a new runtime instance finds it, reads and writes it, snapshots it and destroys it", async () => {
    const first = runtime({ isolation: "none" });
    const handle = await first.launch({ resources: { diskMiB: 16 }, labels: { bound: "yes" } });
    await first.writeFiles(handle, [{ path: "/workspace/kept.txt", content: "kept\n" }]);
    const second = runtime({ isolation: "none" });
    const found = await second.getById(handle.id);
    assert.equal(found?.workspaceDirectory, handle.workspaceDirectory);
    assert.deepEqual(
      (await second.findByLabels({ bound: "yes" })).map((each) => each.id),
      [handle.id],
    );
    const read = await second.exec(handle, { shell: "cat kept.txt && df -k --output=size . | tail -1" });
    assert.match(read.stdout, /^kept\n\s*\d+\n$/);
    const snapshot = await second.snapshot(handle);
    // Restored into a bounded workspace of its own.
    const restored = await second.launch({ from: snapshot, resources: { diskMiB: 16 } });
    try {
      assert.equal(new TextDecoder().decode(await second.readFile(restored, "/workspace/kept.txt")), "kept\n");
      assert.equal(await mountedAt(join(sandboxDirectory(restored.id), DISK_MOUNT)), true);
      // And into an unbounded one.
      const plain = await second.launch({ from: snapshot });
      assert.equal(readFileSync(join(plain.workspaceDirectory, "kept.txt"), "utf8"), "kept\n");
      await second.destroy(plain);
    } finally {
      await second.destroy(restored);
      await second.destroy(handle);
      await second.deleteSnapshot(snapshot);
    }
    for (const id of [handle.id, restored.id]) {
      assert.equal(await mountedAt(join(sandboxDirectory(id), DISK_MOUNT)), false, `${id} is unmounted`);
      assert.deepEqual(await loopDevicesOf(join(sandboxDirectory(id), DISK_IMAGE)), []);
    }
  });

  test("a snapshot larger than the bound is refused at launch, and nothing is left mounted", async () => {
    const rt = runtime({ isolation: "none" });
    const big = await rt.launch();
    await rt.exec(big, { shell: "head -c 12m /dev/urandom > big.bin" });
    const snapshot = await rt.snapshot(big);
    await rt.destroy(big);
    try {
      const refusal = await rt.launch({ from: snapshot, resources: { diskMiB: 8 } }).catch((error: unknown) => error);
      assert.ok(SandportError.hasCode(refusal, "INVALID_REQUEST"), String(refusal));
      assert.match(refusal.message, /do not fit in resources\.diskMiB/);
      assert.doesNotMatch(execFileSync("/usr/bin/mount", { encoding: "utf8" }), new RegExp(root.path));
    } finally {
      await rt.deleteSnapshot(snapshot);
    }
  });

  test("a workspace unmounted behind the runtime's back (a host restart) is mounted again on first use", async () => {
    const rt = runtime({ isolation: "none" });
    const handle = await rt.launch({ resources: { diskMiB: 16 } });
    try {
      await rt.writeFiles(handle, [{ path: "/workspace/survives.txt", content: "yes\n" }]);
      execFileSync("/usr/bin/umount", [join(sandboxDirectory(handle.id), DISK_MOUNT)]);
      assert.equal(existsSync(handle.workspaceDirectory), false, "unmounted, the workspace is not there");
      // A runtime that cannot mount refuses, naming why, and never uses a host directory in its place.
      const store = new SandboxStore(root.path, "disk");
      const record = await store.require(handle.id);
      await assert.rejects(
        remountWorkspace(store, record, { ok: false, reason: "mounting a workspace image needs root" }),
        (error: unknown) =>
          SandportError.hasCode(error, "UNSUPPORTED") && /not mounted .* needs root/.test(error.message),
      );
      assert.equal(existsSync(handle.workspaceDirectory), false, "still no workspace");
      const fresh = runtime({ isolation: "none" });
      const result = await fresh.exec(handle, { shell: "cat survives.txt" });
      assert.deepEqual([result.exitCode, result.stdout], [0, "yes\n"]);
    } finally {
      await rt.destroy(handle);
    }
  });
});

test("diskMiB below the smallest bound is refused UNSUPPORTED before anything is created", {
  skip: noDisk,
}, async () => {
  const rt = runtime({ isolation: "none", owner: "disk-small" });
  const refusal = await rt.launch({ resources: { diskMiB: 4 } }).catch((error: unknown) => error);
  assert.ok(SandportError.hasCode(refusal, "UNSUPPORTED"), String(refusal));
  assert.match(refusal.message, /below 8/);
  assert.deepEqual(await rt.findByLabels({}), []);
});

test("a bound larger than the host's free space is refused UNSUPPORTED, and nothing is left", {
  skip: noDisk,
}, async () => {
  const rt = runtime({ isolation: "none", owner: "disk-huge" });
  const refusal = await rt.launch({ resources: { diskMiB: 1024 * 1024 * 1024 } }).catch((error: unknown) => error);
  assert.ok(SandportError.hasCode(refusal, "UNSUPPORTED"), String(refusal));
  assert.match(refusal.message, /MiB free, less than the bound/);
  assert.deepEqual(await rt.findByLabels({}), []);
  assert.deepEqual(
    readdirSync(root.path).filter((name) => name.startsWith(".staging-")),
    [],
    "no staging directory is left",
  );
});

test("a destroy while something outside the sandbox holds its workspace busy is DESTROY_UNVERIFIED, and can be finished", {
  skip: noDisk,
}, async () => {
  const rt = runtime({ isolation: "none", owner: "disk-busy" });
  const handle = await rt.launch({ resources: { diskMiB: 16 } });
  const held = openSync(join(handle.workspaceDirectory, "held.txt"), "w");
  try {
    const refusal = await rt.destroy(handle).catch((error: unknown) => error);
    assert.ok(SandportError.hasCode(refusal, "DESTROY_UNVERIFIED"), String(refusal));
    assert.match(refusal.message, /busy/);
    assert.ok(await rt.getById(handle.id), "the sandbox is still findable");
  } finally {
    closeSync(held);
  }
  await rt.destroy(handle);
  assert.equal(await rt.getById(handle.id), undefined);
  assert.equal(await mountedAt(join(sandboxDirectory(handle.id), DISK_MOUNT)), false);
});

test("a copy of the mount that another mount namespace made (unshare --mount) does not keep destroy from finishing", {
  skip: noDisk ?? (existsSync("/usr/bin/unshare") ? undefined : "needs util-linux's unshare"),
}, async () => {
  const rt = runtime({ isolation: "none", owner: "disk-copied" });
  const handle = await rt.launch({ resources: { diskMiB: 16 } });
  const image = join(sandboxDirectory(handle.id), DISK_IMAGE);
  // A private mount namespace made now holds its own copy of every mount, this workspace's included.
  const pin = spawn("/usr/bin/unshare", ["--mount", "--", "/bin/sh", "-c", "echo ready; exec sleep 60"], {
    stdio: ["ignore", "pipe", "ignore"],
  });
  try {
    await new Promise((resolve) => pin.stdout.once("data", resolve));
    await rt.destroy(handle);
    assert.equal(await rt.getById(handle.id), undefined);
    assert.deepEqual(await loopDevicesOf(image), [], "no loop device holds the image");
    assert.equal(pin.exitCode, null, "the other namespace's process was left alone");
  } finally {
    pin.kill("SIGKILL");
  }
});
