// The pool's bookkeeping, on plain directories standing in for cgroups (a leaf is a directory
// with a `cgroup.procs` file; empty means no member). Real leaves are covered by escapees.test.ts.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { LeafPool, MAX_FREE_LEAVES } from "./leaf-pool.js";

const scratch = mkdtempSync(join(tmpdir(), "sandport-leaf-pool-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

let made = 0;
/** A tracking directory with `count` leaves whose `cgroup.procs` hold `members`. */
function tracking(count: number, members = ""): { directory: string; leaves: string[] } {
  const directory = join(scratch, `tracking-${++made}`);
  const leaves = Array.from({ length: count }, (_, index) => {
    const leaf = join(directory, `exec-${index}`);
    mkdirSync(leaf, { recursive: true });
    writeFileSync(join(leaf, "cgroup.procs"), members);
    return leaf;
  });
  return { directory, leaves };
}

const v2 = (directory: string) => ({ version: 2 as const, directory });

describe("LeafPool", () => {
  test("an empty leaf is kept and handed out once, to the same sandbox only", async () => {
    const pool = new LeafPool();
    const [leaf] = tracking(1).leaves as [string];
    const other = tracking(0).directory;
    assert.equal(await pool.keep(v2(leaf)), true);
    assert.equal(pool.take(other), undefined, "another sandbox's tracking cgroup gets nothing");
    assert.equal(pool.take(join(leaf, "..")), leaf);
    assert.equal(pool.take(join(leaf, "..")), undefined, "a leaf is handed out once");
  });

  test("a leaf with members, or one that no longer exists, is not kept", async () => {
    const pool = new LeafPool();
    const [busy] = tracking(1, "4242\n").leaves as [string];
    assert.equal(await pool.keep(v2(busy)), false);
    assert.equal(await pool.keep(v2(join(scratch, "gone", "exec-1"))), false);
    assert.equal(pool.take(join(busy, "..")), undefined);
  });

  test(`at most ${MAX_FREE_LEAVES} leaves are kept per sandbox; the same leaf is never kept twice`, async () => {
    const pool = new LeafPool();
    const { directory, leaves } = tracking(MAX_FREE_LEAVES + 2);
    const kept = [];
    for (const leaf of leaves) kept.push(await pool.keep(v2(leaf)));
    assert.deepEqual(kept, [...Array(MAX_FREE_LEAVES).fill(true), false, false]);
    assert.equal(await pool.keep(v2(leaves[0] as string)), false, "already kept");
    const handedOut = new Set<string | undefined>();
    for (let index = 0; index < MAX_FREE_LEAVES + 1; index++) handedOut.add(pool.take(directory));
    assert.equal(handedOut.size, MAX_FREE_LEAVES + 1, `${MAX_FREE_LEAVES} distinct leaves, then undefined`);
    assert.ok(handedOut.has(undefined));
  });

  test("join moves a pid in through the leaf's cgroup.procs, which keep then checks", async () => {
    const pool = new LeafPool();
    const [leaf] = tracking(1).leaves as [string];
    const members = join(leaf, "cgroup.procs");
    await pool.join(leaf, 4242);
    assert.equal(readFileSync(members, "utf8"), "4242");
    assert.equal(await pool.keep(v2(leaf)), false, "a member: not kept");
    truncateSync(members);
    assert.equal(await pool.keep(v2(leaf)), true, "empty again: kept");
    pool.drop(leaf);
    rmSync(leaf, { recursive: true });
    assert.equal(await pool.keep(v2(leaf)), false, "dropped and gone: not kept");
  });

  test("join never makes a leaf's parent: once the sandbox's tracking cgroup is removed, it fails", async () => {
    const pool = new LeafPool();
    const tracking = join(scratch, `removed-${++made}`);
    await assert.rejects(pool.join(join(tracking, "exec-1"), 4242), { code: "ENOENT" });
    assert.equal(existsSync(tracking), false, "the tracking cgroup was made again");
  });

  test("past the limit in all, the sandbox that kept leaves first loses them", async () => {
    const pool = new LeafPool(2);
    const first = tracking(2);
    const second = tracking(1);
    assert.equal(await pool.keep(v2(first.leaves[0] as string)), true);
    assert.equal(await pool.keep(v2(first.leaves[1] as string)), true);
    assert.equal(await pool.keep(v2(second.leaves[0] as string)), true);
    assert.equal(pool.take(first.directory), undefined, "the first sandbox's leaves went");
    assert.equal(pool.take(second.directory), second.leaves[0]);
  });

  test("forget drops a sandbox's leaves, and a keep that overlapped a forget keeps nothing", async () => {
    const pool = new LeafPool();
    const { directory, leaves } = tracking(2);
    assert.equal(await pool.keep(v2(leaves[0] as string)), true);
    pool.forget(directory);
    assert.equal(pool.take(directory), undefined);
    const keeping = pool.keep(v2(leaves[1] as string));
    pool.forget(directory);
    assert.equal(await keeping, false);
    assert.equal(pool.take(directory), undefined);
  });
});
