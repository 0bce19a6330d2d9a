// Whether a runtime declares diskLimit: decided at construction from its privileges and the host's tools.
import assert from "node:assert/strict";
import { test } from "node:test";
import { type DiskFacts, diskSupport, judgeDiskSupport } from "./disk-support.js";

const ROOT_STATUS = "Name:\tnode\nCapInh:\t0000000000000000\nCapEff:\t000001ffffffffff\n";
const facts: DiskFacts = {
  platform: "linux",
  uid: 0,
  status: ROOT_STATUS,
  uidMap: "         0          0 4294967295\n",
  readWrite: (path) => path === "/dev/loop-control",
  executable: (path) => ["/usr/sbin/mkfs.ext4", "/usr/bin/mount", "/usr/bin/umount"].includes(path),
};

test("root with CAP_SYS_ADMIN in the host's user namespace, a loop allocator and the tools can bound workspaces", () => {
  assert.deepEqual(judgeDiskSupport(facts), {
    ok: true,
    tools: { mkfs: "/usr/sbin/mkfs.ext4", mount: "/usr/bin/mount", umount: "/usr/bin/umount" },
  });
  const elsewhere = judgeDiskSupport({ ...facts, executable: (path) => /^\/(sbin|bin)\//.test(path) });
  assert.deepEqual(elsewhere, {
    ok: true,
    tools: { mkfs: "/sbin/mkfs.ext4", mount: "/bin/mount", umount: "/bin/umount" },
  });
});

test("each missing piece is named as the reason", () => {
  const reasons = [
    judgeDiskSupport({ ...facts, platform: "darwin" }),
    judgeDiskSupport({ ...facts, uid: 1000 }),
    judgeDiskSupport({ ...facts, status: "CapEff:\t00000000a80425fb\n" }),
    judgeDiskSupport({ ...facts, uidMap: "0 100000 65536\n" }),
    judgeDiskSupport({ ...facts, readWrite: () => false }),
    judgeDiskSupport({ ...facts, executable: (path) => !path.includes("mkfs") }),
    judgeDiskSupport({ ...facts, executable: (path) => path.includes("mkfs") }),
  ].map((verdict) => (verdict.ok ? "ok" : verdict.reason));
  assert.match(reasons[0] ?? "", /darwin/);
  assert.match(reasons[1] ?? "", /needs root; .* uid 1000/);
  assert.match(reasons[2] ?? "", /CAP_SYS_ADMIN/);
  assert.match(reasons[3] ?? "", /user namespace of its own/);
  assert.match(reasons[4] ?? "", /no loop device .*\/dev\/loop-control/);
  assert.match(reasons[5] ?? "", /mkfs\.ext4 is not installed/);
  assert.match(reasons[6] ?? "", /mount is not installed/);
});

test("this process's verdict is decided once and says why when it cannot", () => {
  const verdict = diskSupport();
  assert.equal(diskSupport(), verdict, "decided once per process");
  if (!verdict.ok) assert.ok(verdict.reason.length > 0);
  else if (process.getuid?.() !== 0) assert.fail("a non-root process was judged able to mount");
});
