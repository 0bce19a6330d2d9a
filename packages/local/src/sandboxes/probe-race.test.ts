// A runtime's first launch probes bubblewrap, whose verdict lasts the process's life. Other launches over the
// same root mount file systems under it all the while (each bounded workspace is one) and rename the directories
// holding them: the probe must not see them, or one moved mid-probe fails it, and every later launch with it.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { LocalRuntime } from "../index.js";
import { runsAsRoot } from "../options.js";
import { bwrapSkipReason, temporaryDirectory } from "../runtime.fixture.js";

const roots = temporaryDirectory("probe-race");
after(() => roots.remove());

const skip = runsAsRoot() ? await bwrapSkipReason() : "mounting under the root takes root";

/**
 * What launches do under a root all the while: a file system mounted in a directory (a bounded workspace in its
 * staging directory), whose directory is then renamed (the staging directory becomes the sandbox's). Here a
 * tmpfs in each of {@link CHURNS} directories, renamed back and forth as fast as a loop can, until killed.
 */
function churnMounts(root: string) {
  const points = Array.from({ length: CHURNS }, (_, index) => join(root, `stage-${index}`));
  for (const point of points) {
    mkdirSync(join(point, "disk"), { recursive: true });
    spawnSync("mount", ["-t", "tmpfs", "churn", join(point, "disk")], { stdio: "ignore" });
  }
  const loop = `const { renameSync, writeSync } = require("node:fs");
writeSync(1, "renaming\\n");
for (;;) for (const point of ${JSON.stringify(points)}) { renameSync(point, point + "-moved"); renameSync(point + "-moved", point); }`;
  const child = spawn(process.execPath, ["-e", loop], { stdio: ["ignore", "pipe", "ignore"] });
  // Under way once it says so (Node takes tens of milliseconds to start: a probe takes about as long).
  const renaming = new Promise((resolve) => child.stdout.once("data", resolve));
  return { points, process: child, renaming };
}

/** How many mounted directories are renamed under a root at once. */
const CHURNS = 8;

describe("the isolation probe beside mounts moving under the root", { skip }, () => {
  test("a first launch over a root whose mounted directories are being renamed is never refused", async () => {
    const refused: string[] = [];
    for (let trial = 0; trial < 20; trial++) {
      // A root per trial: each runtime probes afresh (a probe's verdict is kept per root).
      const root = join(roots.path, `root-${trial}`);
      mkdirSync(root);
      const churn = churnMounts(root);
      await churn.renaming;
      try {
        const runtime = new LocalRuntime({ root, defaultResources: false });
        await runtime.destroy(await runtime.launch());
      } catch (error) {
        refused.push(String(error));
      } finally {
        churn.process.kill("SIGKILL");
        await new Promise((resolve) => churn.process.once("exit", resolve));
        for (const point of churn.points) {
          // Killed between its two renames, the loop leaves a directory under its other name.
          for (const name of [point, `${point}-moved`]) spawnSync("umount", [join(name, "disk")], { stdio: "ignore" });
        }
      }
    }
    assert.deepEqual(refused, []);
  });
});
