// setFrozen on a real freezer cgroup: transitions of one freezer started together run one after another,
// so none waits for a state that another's write took away (two forks of one source, one thawing as the
// other freezes, used to leave one of them waiting until its 30 s signal fired).
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdir, readFile, rmdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { probeCgroupHost } from "./cgroup-host.js";
import { freezerSupport, setFrozen } from "./freezer.js";

const support = freezerSupport();

test("freeze, thaw and freeze started at once all settle, in call order, the last one's state kept", {
  skip: support.ok ? undefined : `this process cannot freeze: ${support.reason}`,
}, async () => {
  const unified = (await probeCgroupHost()).unified;
  assert.ok(unified, "a writable cgroup v2 hierarchy (freezerSupport said so)");
  const directory = join(unified.directory, `sandport-freezer-test-${process.pid}`);
  await mkdir(directory);
  const sleeper = spawn("sleep", ["60"], { stdio: "ignore" });
  try {
    await writeFile(join(directory, "cgroup.procs"), String(sleeper.pid));
    for (let round = 0; round < 20; round++) {
      const settled: string[] = [];
      const transition = (frozen: boolean) =>
        setFrozen(directory, frozen, AbortSignal.timeout(5_000)).then(() => settled.push(frozen ? "1" : "0"));
      await Promise.all([transition(true), transition(false), transition(true)]);
      assert.deepEqual(settled, ["1", "0", "1"], `round ${round}`);
      assert.match(await readFile(join(directory, "cgroup.events"), "utf8"), /^frozen 1$/m);
      await Promise.all([transition(false), transition(true), transition(false)]);
      assert.match(await readFile(join(directory, "cgroup.events"), "utf8"), /^frozen 0$/m);
    }
    const aborted = AbortSignal.abort(new Error("given up before its turn"));
    const stuck = setFrozen(directory, true, AbortSignal.timeout(5_000));
    await assert.rejects(setFrozen(directory, false, aborted), /given up before its turn/);
    await stuck;
    assert.match(await readFile(join(directory, "cgroup.freeze"), "utf8"), /^1$/m, "the given-up thaw wrote nothing");
    await setFrozen(directory, false, AbortSignal.timeout(5_000));
  } finally {
    sleeper.kill("SIGKILL");
    await new Promise((resolve) => sleeper.once("exit", resolve));
    await rmdir(directory).catch(() => {});
  }
});
