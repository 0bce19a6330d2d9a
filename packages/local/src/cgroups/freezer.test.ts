// Whether a runtime declares lifecycle: decided from the process's kernel, cgroup mounts and write access.
import assert from "node:assert/strict";
import { test } from "node:test";
import { SandportError } from "@sandport/core";
import { addFreezer, type FreezerFacts, judgeFreezer } from "./freezer.js";

const facts: FreezerFacts = {
  platform: "linux",
  kernel: "6.1.0-18-amd64",
  mountinfo: [
    "25 21 0:22 / /sys/fs/cgroup rw,nosuid shared:9 - cgroup2 cgroup2 rw,nsdelegate",
    "26 21 0:23 / /proc rw shared:10 - proc proc rw",
  ].join("\n"),
  membership: "0::/user.slice/user-1000.slice/session-2.scope\n",
  writable: () => true,
};

test("a writable own cgroup on cgroup v2 and a recent kernel can freeze", () => {
  const seen: string[] = [];
  const verdict = judgeFreezer({ ...facts, writable: (directory) => seen.push(directory) > 0 });
  assert.deepEqual(verdict, { ok: true });
  assert.deepEqual(seen, ["/sys/fs/cgroup/user.slice/user-1000.slice/session-2.scope"], "its own cgroup is checked");
});

test("each missing piece is named as the reason", () => {
  const reasons = [
    judgeFreezer({ ...facts, platform: "darwin" }),
    judgeFreezer({ ...facts, kernel: "5.10.0-28-amd64" }),
    judgeFreezer({ ...facts, mountinfo: "26 21 0:23 / /proc rw shared:10 - proc proc rw" }),
    judgeFreezer({ ...facts, membership: "4:memory:/x\n" }),
    judgeFreezer({ ...facts, writable: () => false }),
  ].map((verdict) => (verdict.ok ? "ok" : verdict.reason));
  assert.match(reasons[0] ?? "", /darwin/);
  assert.match(reasons[1] ?? "", /older than 5\.14/);
  assert.match(reasons[2] ?? "", /no cgroup v2 hierarchy/);
  assert.match(reasons[3] ?? "", /no cgroup v2 hierarchy/);
  assert.match(reasons[4] ?? "", /cannot create cgroups in its own cgroup .*delegated/);
});

test("a kernel of 5.14 or later qualifies, whatever its suffix", () => {
  for (const kernel of ["5.14.0", "5.15.0-91-generic", "6.18.44-fc-v1252"]) {
    assert.deepEqual(judgeFreezer({ ...facts, kernel }), { ok: true }, kernel);
  }
  assert.equal(judgeFreezer({ ...facts, kernel: "5.13.19" }).ok, false);
});

test("a launch where no writable cgroup v2 hierarchy turned up after all is refused UNSUPPORTED, naming the way out", async () => {
  await assert.rejects(
    addFreezer({ legacy: {} }, "sbx-none", undefined),
    (error: unknown) => SandportError.hasCode(error, "UNSUPPORTED") && /cgroups: "disabled"/.test(error.message),
  );
});
