// The host checks read /proc and /sys through an injectable reader, so each verdict can be shown
// for a machine this test does not run on.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { cgroupCheck, nodeCheck, userNamespaceCheck } from "./host-checks.js";

const files = (entries: Record<string, string>) => (path: string) => entries[path];

describe("host checks", { skip: process.platform !== "linux" && "Linux only" }, () => {
  test("user namespaces: allowed, disabled by either sysctl (with the fix), or restricted by AppArmor", () => {
    assert.equal(userNamespaceCheck(files({})).status, "ok");
    const debian = userNamespaceCheck(files({ "/proc/sys/kernel/unprivileged_userns_clone": "0" }));
    assert.equal(debian.status, "fail");
    assert.equal(debian.fix, "sysctl -w kernel.unprivileged_userns_clone=1");
    assert.equal(userNamespaceCheck(files({ "/proc/sys/user/max_user_namespaces": "0" })).status, "fail");
    const ubuntu = userNamespaceCheck(files({ "/proc/sys/kernel/apparmor_restrict_unprivileged_userns": "1" }));
    assert.equal(ubuntu.status, "warn");
    assert.match(ubuntu.fix ?? "", /apparmor_restrict_unprivileged_userns=0/);
  });

  test("cgroups: the v2 controllers, or a warning that resource limits are refused", () => {
    const v2 = cgroupCheck(files({ "/sys/fs/cgroup/cgroup.controllers": "cpu memory pids" }));
    assert.equal(v2.status, "info");
    assert.match(v2.detail, /^cgroup v2 controllers: cpu memory pids; /);
    const none = cgroupCheck(files({}));
    assert.equal(none.status, "warn");
    assert.match(none.detail, /refuses resource limits/);
  });
});

test("node: this version against the floor", () => {
  assert.equal(nodeCheck(">=20").status, "ok");
  const old = nodeCheck(">=99");
  assert.equal(old.status, "fail");
  assert.equal(old.fix, "install Node >=99");
});
