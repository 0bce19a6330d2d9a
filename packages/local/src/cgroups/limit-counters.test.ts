// The counters are read from the cgroup's own files; here from copies of their format in a directory.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { temporaryDirectory } from "../runtime.fixture.js";
import { limitBetween, readLimitCounters } from "./limit-counters.js";

const root = temporaryDirectory("limit-counters");
after(() => root.remove());

function cgroup(name: string, files: Record<string, string>): string {
  const directory = join(root.path, name);
  mkdirSync(directory);
  for (const [file, text] of Object.entries(files)) writeFileSync(join(directory, file), text);
  return directory;
}

describe("limit counters", () => {
  test("v2: oom_kill and oom_group_kill of memory.events, max of pids.events, pids.current", async () => {
    const directory = cgroup("unified", {
      "memory.events": "low 0\nhigh 0\nmax 12\noom 2\noom_kill 2\noom_group_kill 1\n",
      "pids.events": "max 5\n",
      "pids.current": "3\n",
    });
    const counters = await readLimitCounters({ limits: [{ version: 2, directory }] });
    assert.deepEqual(counters, { oomKills: 3, forkRefusals: 5, processes: 3 });
  });

  test("v1: oom_kill of memory.oom_control in one hierarchy, pids.events in another; missing files count 0", async () => {
    const memory = cgroup("memory", { "memory.oom_control": "oom_kill_disable 0\nunder_oom 0\noom_kill 4\n" });
    const pids = cgroup("pids", { "pids.events": "max 7\n", "pids.current": "1\n" });
    const counters = await readLimitCounters({
      limits: [
        { version: 1, directory: memory },
        { version: 1, directory: pids },
      ],
    });
    assert.deepEqual(counters, { oomKills: 4, forkRefusals: 7, processes: 1 });
    assert.equal(await readLimitCounters({ limits: [] }), undefined);
    assert.equal(await readLimitCounters(undefined), undefined);
  });

  test("only a change counts; an OOM kill wins over a refused fork; no reading, no limit", () => {
    const base = { oomKills: 1, forkRefusals: 1, processes: 0 };
    assert.equal(limitBetween(base, base), undefined);
    assert.equal(limitBetween(base, { ...base, forkRefusals: 2 }), "processes");
    assert.equal(limitBetween(base, { ...base, oomKills: 2, forkRefusals: 9 }), "memory");
    assert.equal(limitBetween(undefined, base), undefined);
    assert.equal(limitBetween(base, undefined), undefined);
  });
});
