// Which uid markers a reclaim may give back: only those of this root, of a launch that is over, for a sandbox the
// root does not hold, in the form that says who took them.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { identify, type ProcessIdentity } from "../processes/process-tree.js";
import { killedProcess, temporaryDirectory } from "../runtime.fixture.js";
import { beginLaunch, endLaunch } from "./launches-in-flight.js";
import { reclaimUidMarkers } from "./uid-leftovers.js";
import { markerText } from "./uid-marker.js";
import { UidPool } from "./uid-pool.js";

const markers = temporaryDirectory("uid-leftovers");
after(() => markers.remove());
const ROOT = "/var/lib/sandport-test/this-root";

describe("uid markers of killed launches", {
  skip: identify(process.pid) === undefined ? "needs /proc to identify processes" : false,
}, () => {
  test("removes this root's markers of launches that are over, keeps every other one", async () => {
    mkdirSync(markers.path, { recursive: true });
    const self = identify(process.pid) as ProcessIdentity;
    const dead = await killedProcess();
    const sleeper = spawn("/bin/sleep", ["1000"], { stdio: "ignore" });
    after(() => sleeper.kill("SIGKILL"));
    await once(sleeper, "spawn");
    const alive = identify(sleeper.pid as number) as ProcessIdentity;
    const write = (uid: number, text: string) => writeFileSync(join(markers.path, String(uid)), text, { mode: 0o600 });
    write(100, markerText("sbx-dead", ROOT, dead)); // reclaimed: launcher gone
    write(101, markerText("sbx-over-here", ROOT, self)); // reclaimed: this process, launch not in flight
    write(102, markerText("sbx-other-root", "/var/lib/sandport-test/other-root", dead));
    write(103, markerText("sbx-alive", ROOT, alive));
    write(104, markerText("sbx-in-flight", ROOT, self));
    write(105, "sbx-old-format\n");
    write(106, markerText("sbx-held", ROOT, dead));
    write(107, "garbage\nmore\n");
    writeFileSync(join(markers.path, "not-a-uid"), markerText("sbx-not-a-uid", ROOT, dead));
    const asked: string[] = [];
    beginLaunch("sbx-in-flight");
    try {
      const leftovers = await reclaimUidMarkers({
        directory: markers.path,
        root: ROOT,
        holds: async (id) => {
          asked.push(id);
          return id === "sbx-held";
        },
      });
      assert.deepEqual(leftovers.map((leftover) => [leftover.kind, leftover.path, leftover.reclaimed]).sort(), [
        ["uid", join(markers.path, "100"), true],
        ["uid", join(markers.path, "101"), true],
      ]);
    } finally {
      endLaunch("sbx-in-flight");
    }
    assert.deepEqual(readdirSync(markers.path).sort(), ["102", "103", "104", "105", "106", "107", "not-a-uid"]);
    assert.deepEqual(asked.sort(), ["sbx-dead", "sbx-held", "sbx-over-here"], "the root is asked only of orphans");
    assert.equal(readFileSync(join(markers.path, "106"), "utf8"), markerText("sbx-held", ROOT, dead));
  });

  test("a marker names its sandbox, root and launching process; giveBack still removes only its sandbox's", async () => {
    const directory = join(markers.path, "pool");
    const taken = await new UidPool(directory, { first: 5000, count: 1 }).take("sbx-a", ROOT);
    const self = identify(process.pid) as ProcessIdentity;
    assert.equal(readFileSync(taken.marker, "utf8"), `sbx-a\n${ROOT}\n${self.pid}\n${self.startTime}\n`);
    await UidPool.giveBack(taken.marker, "sbx-b");
    assert.ok(existsSync(taken.marker), "a marker naming another sandbox stays");
    await UidPool.giveBack(taken.marker, "sbx-a");
    assert.ok(!existsSync(taken.marker));
    writeFileSync(taken.marker, "sbx-old\n");
    await UidPool.giveBack(taken.marker, "sbx-old");
    assert.ok(!existsSync(taken.marker), "an earlier version's marker is given back too");
  });

  test("the processes of an orphaned uid of the runtime's range are killed before its marker goes; others are left", {
    skip: process.getuid?.() !== 0 || !existsSync("/usr/bin/setpriv") ? "needs root and util-linux's setpriv" : false,
  }, async () => {
    const directory = join(markers.path, "with-processes");
    mkdirSync(directory, { recursive: true });
    const first = 2_100_000_000 + Math.floor(Math.random() * 1_000_000);
    const range = { first, count: 3 };
    const dead = await killedProcess();
    // As a launch killed after starting a namespace holder leaves it: a process of the uid, the marker naming a
    // sandbox the root does not hold. Beside it: a held sandbox's uid, and a uid outside the range.
    const runAs = (uid: number) => {
      const child = spawn(
        "/usr/bin/setpriv",
        [`--reuid=${uid}`, `--regid=${uid}`, "--clear-groups", "/bin/sleep", "1000"],
        {
          stdio: "ignore",
        },
      );
      after(() => child.kill("SIGKILL"));
      return child;
    };
    const orphan = runAs(first);
    const held = runAs(first + 1);
    const outside = runAs(first + 5);
    await Promise.all([orphan, held, outside].map((child) => once(child, "spawn")));
    const write = (uid: number, id: string) => writeFileSync(join(directory, String(uid)), markerText(id, ROOT, dead));
    write(first, "sbx-orphan");
    write(first + 1, "sbx-held");
    write(first + 5, "sbx-outside");
    const exited = once(orphan, "exit");
    const leftovers = await reclaimUidMarkers({ directory, root: ROOT, holds: async (id) => id === "sbx-held", range });
    const [, signal] = await Promise.race([exited, delay(5_000).then(() => [null, "still running after 5 s"])]);
    assert.equal(signal, "SIGKILL", "the orphaned uid's process was killed");
    assert.deepEqual(leftovers.map((leftover) => [leftover.kind, leftover.path, leftover.reclaimed]).sort(), [
      ["process", `/proc/${orphan.pid}`, true],
      ["uid", join(directory, String(first)), true],
      ["uid", join(directory, String(first + 5)), true],
    ]);
    assert.equal(held.exitCode, null, "a held sandbox's process runs on");
    assert.equal(outside.exitCode, null, "a process of a uid outside the range runs on");
    assert.equal(held.signalCode, null);
    assert.equal(outside.signalCode, null);
    assert.deepEqual(readdirSync(directory), [String(first + 1)]);
  });
});
