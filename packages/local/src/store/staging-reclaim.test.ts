// Leftovers of a launch killed midway: a new runtime over the same root removes the ones it can prove its own.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { LocalRuntime } from "../index.js";
import { identify } from "../processes/process-tree.js";
import { killedProcess, temporaryDirectory } from "../runtime.fixture.js";
import { beginLaunch, endLaunch } from "./launches-in-flight.js";
import { stagingName } from "./staging-name.js";

const root = temporaryDirectory("staging");
after(() => root.remove());

/** A staging directory as `SandboxStore.create` leaves it when its process dies before the rename. */
function leftover(name: string): string {
  const path = join(root.path, name);
  mkdirSync(join(path, "workspace", ".tmp"), { recursive: true });
  mkdirSync(join(path, "running"));
  writeFileSync(join(path, "sandbox.json"), "{}");
  return path;
}

describe("abandoned staging directories", () => {
  test("a new runtime removes its owner's staging left by a killed process, and nothing it cannot prove abandoned or its own", {
    skip: identify(process.pid) === undefined ? "needs /proc to identify processes" : false,
  }, async () => {
    mkdirSync(root.path, { recursive: true });
    const dead = await killedProcess();
    const live = spawn("/bin/sleep", ["1000"], { stdio: "ignore" });
    after(() => live.kill("SIGKILL"));
    await once(live, "spawn");
    const abandoned = leftover(stagingName("sbx-abandoned", "sandport", dead));
    const running = leftover(stagingName("sbx-running", "sandport", identify(live.pid as number)));
    // This process: one launch under way (left alone), one over without having removed its staging (an EMFILE).
    const launching = leftover(stagingName("sbx-launching", "sandport", identify(process.pid)));
    const failed = leftover(stagingName("sbx-failed", "sandport", identify(process.pid)));
    beginLaunch("sbx-launching");
    after(() => endLaunch("sbx-launching"));
    const foreign = leftover(stagingName("sbx-foreign", "someone-else", dead));
    const unproven = leftover(".staging-sbx-oldform");
    const runtime = new LocalRuntime({ root: root.path, isolation: "none" });
    const handle = await runtime.launch();
    assert.equal(existsSync(abandoned), false, "the killed launch's staging is reclaimed");
    assert.ok(existsSync(running), "a launch whose process still runs is left alone");
    assert.ok(existsSync(launching), "a launch still under way in this process is left alone");
    assert.equal(existsSync(failed), false, "a launch of this process that is over is reclaimed");
    assert.ok(existsSync(foreign), "another owner's staging is left alone");
    assert.ok(existsSync(unproven), "a staging without its creator's identity is left alone");
    assert.deepEqual(
      readdirSync(root.path)
        .filter((name) => name.startsWith(".staging-"))
        .sort(),
      [".staging-sbx-oldform", ...[running, launching, foreign].map((path) => path.slice(root.path.length + 1))].sort(),
      "the launch itself left no staging behind",
    );
    await runtime.destroy(handle);
  });
});
