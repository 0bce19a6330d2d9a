// What a new runtime may take for an orphan sandbox cgroup: only one named for its root and owner, by a launch that
// is over, of a sandbox the root does not hold, with no process in it. Everything else stays.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { identify } from "../processes/process-tree.js";
import { temporaryDirectory } from "../runtime.fixture.js";
import { beginLaunch, endLaunch } from "../store/launches-in-flight.js";
import { probeCgroupHost } from "./cgroup-host.js";
import { CGROUP_PARENTS_FILE, noteCgroupParents, reclaimCgroups } from "./cgroup-leftovers.js";
import { sandboxCgroupName } from "./cgroup-name.js";
import { removeCgroup } from "./cgroups.js";

const root = temporaryDirectory("cgroup-leftovers");
after(() => root.remove());
const host = await probeCgroupHost();
const parent = host.unified?.canKill ? host.unified.directory : undefined;
const made: string[] = [];
after(async () => {
  for (const cgroup of made) await removeCgroup(2, cgroup);
});

describe("orphan sandbox cgroups", {
  skip:
    parent === undefined
      ? "needs a writable cgroup v2 hierarchy with cgroup.kill (root, or a delegated subtree)"
      : false,
}, () => {
  test("are reclaimed only when named for this root and owner, over, unheld and empty", async () => {
    mkdirSync(root.path, { recursive: true });
    const dead = identify(spawnSync("/bin/true").pid as number) ?? {
      pid: spawnSync("/bin/true").pid as number,
      startTime: "1",
    };
    const self = identify(process.pid);
    const cgroup = (id: string, creator = dead, owner = "sandport") => {
      const path = join(parent as string, sandboxCgroupName(id, root.path, owner, creator));
      mkdirSync(path);
      made.push(path);
      return path;
    };
    const killed = cgroup("sbx-killed");
    mkdirSync(join(killed, "exec-1-1"));
    const failedHere = cgroup("sbx-failed", self);
    const launching = cgroup("sbx-launching", self);
    beginLaunch("sbx-launching");
    after(() => endLaunch("sbx-launching"));
    const foreign = cgroup("sbx-foreign", dead, "someone-else");
    const held = cgroup("sbx-held");
    mkdirSync(join(root.path, "sbx-held"));
    const busy = cgroup("sbx-busy");
    const sleeper = spawn("/bin/sleep", ["1000"], { stdio: "ignore" });
    after(() => sleeper.kill("SIGKILL"));
    await once(sleeper, "spawn");
    writeFileSync(join(busy, "cgroup.procs"), String(sleeper.pid));

    const leftovers = await reclaimCgroups({
      root: root.path,
      owner: "sandport",
      host,
      holds: async (id) => existsSync(join(root.path, id)),
    });
    assert.deepEqual(
      leftovers.map((leftover) => [leftover.path, leftover.reclaimed]).sort(),
      [
        [killed, true],
        [failedHere, true],
        [busy, false],
      ].sort(),
    );
    assert.match(leftovers.find((leftover) => leftover.path === busy)?.reason ?? "", new RegExp(`${sleeper.pid}`));
    for (const gone of [killed, failedHere]) assert.equal(existsSync(gone), false, `${gone} is reclaimed`);
    for (const kept of [launching, foreign, held, busy]) assert.ok(existsSync(kept), `${kept} stays`);
  });

  test("a parent noted in the root is scanned too, and a noted path outside every cgroup mount is ignored", async () => {
    mkdirSync(root.path, { recursive: true });
    const elsewhere = join(parent as string, `sandport-test-parent-${process.pid}`);
    mkdirSync(elsewhere);
    made.push(elsewhere);
    const orphan = join(
      elsewhere,
      sandboxCgroupName("sbx-elsewhere", root.path, "second", {
        pid: spawnSync("/bin/true").pid as number,
        startTime: "1",
      }),
    );
    mkdirSync(orphan);
    const decoy = join(root.path, "decoy");
    mkdirSync(join(decoy, sandboxCgroupName("sbx-decoy", root.path, "second", { pid: 1, startTime: "0" })), {
      recursive: true,
    });
    await noteCgroupParents(root.path, host);
    writeFileSync(join(root.path, CGROUP_PARENTS_FILE), `${elsewhere}\n${decoy}\n`, { flag: "a" });
    // Another owner than the first test's, whose cgroups that test leaves to its own cleanup.
    const leftovers = await reclaimCgroups({ root: root.path, owner: "second", host, holds: async () => false });
    assert.deepEqual(
      leftovers.map((leftover) => leftover.path),
      [orphan],
    );
    assert.equal(existsSync(orphan), false);
    assert.ok(existsSync(decoy), "a directory outside the cgroup mounts is never scanned");
  });
});
