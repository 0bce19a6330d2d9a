// `sandport sweep` as a child process against the E2B emulator seeded with owned-fresh,
// owned-expired and foreign sandboxes, and against the local runtime.
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { accessSync, constants, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, mock, test } from "node:test";
import { E2BRuntime } from "@sandport/e2b";
import { LocalRuntime } from "@sandport/local";
import { localOptions, runCli, scratchDirectory, useE2BEmulator } from "../cli.fixture.js";
import { EXIT } from "../exit-codes.js";

interface SweepReport {
  dryRun: boolean;
  sandboxes: {
    id: string;
    outcome: string;
    ageMs: number | null;
    ageAtDestroyMs?: number;
    labels: Record<string, string>;
  }[];
  snapshots?: { id: string; outcome: string; ageMs: number | null; labels: Record<string, string> }[];
}

const OWNER = "sweep-test";
/** The expired and foreign sandboxes are created two hours in the past; the fresh one now. */
const OLDER_THAN = "1h";
const TWO_HOURS_MS = 2 * 3_600_000;

/**
 * Runs `create` with this process's clock two hours behind, so that the emulator (which serves from
 * this process) records the sandboxes it creates as two hours old; the CLI, in its own process,
 * then sees them that old. No test waits for time to pass, so none depends on how fast it runs.
 */
async function twoHoursAgo<T>(create: () => Promise<T>): Promise<T> {
  const clock = mock.method(Date, "now", () => performance.timeOrigin + performance.now() - TWO_HOURS_MS);
  try {
    return await create();
  } finally {
    clock.mock.restore();
  }
}

describe("sandport sweep (E2B emulator)", () => {
  const fixture = useE2BEmulator("sweep");
  let expired: string[];
  let fresh: string;
  let foreign: string[];
  const sweep = (...args: string[]) =>
    runCli(["sweep", "--provider", "e2b", "--endpoint", fixture.emulator().url, "--owner", OWNER, "--json", ...args], {
      env: fixture.env(),
    });
  const live = () =>
    fixture
      .emulator()
      .liveSandboxes()
      .map((sandbox) => sandbox.id);

  before(async () => {
    const emulator = fixture.emulator();
    const connection = {
      apiKey: emulator.apiKey,
      apiUrl: emulator.url,
      sandboxUrl: emulator.url,
      domain: emulator.domain,
    };
    const ours = new E2BRuntime({ ...connection, owner: OWNER });
    const theirs = new E2BRuntime({ ...connection, owner: "someone-else" });
    [expired, foreign] = await twoHoursAgo(async () => [
      [(await ours.launch({ labels: { job: "a" } })).id, (await ours.launch({ labels: { job: "b" } })).id],
      [
        await emulator.seedForeignSandbox({ job: "a" }),
        // An owner whose name starts with ours is another owner.
        await emulator.seedForeignSandbox({ "sandport.owner": `${OWNER}-2`, job: "a" }),
        (await theirs.launch({ labels: { job: "a" } })).id,
      ],
    ]);
    fresh = (await ours.launch({ labels: { job: "a" } })).id;
  });

  test("a dry run lists the owned sandboxes, marks the expired ones, and destroys nothing", async () => {
    const { code, stdout, stderr } = await sweep("--older-than", OLDER_THAN);
    assert.equal(code, EXIT.OK, stderr);
    const report = JSON.parse(stdout) as SweepReport;
    assert.equal(report.dryRun, true);
    const outcomes = Object.fromEntries(report.sandboxes.map((sandbox) => [sandbox.id, sandbox.outcome]));
    const ages = report.sandboxes.filter((sandbox) => expired.includes(sandbox.id)).map((sandbox) => sandbox.ageMs);
    assert.ok(
      ages.every((age) => age !== null && age >= TWO_HOURS_MS - 60_000),
      `the expired ones are two hours old: ${ages}`,
    );
    assert.deepEqual(outcomes, {
      [expired[0]!]: "would destroy",
      [expired[1]!]: "would destroy",
      [fresh]: "kept: younger",
    });
    assert.deepEqual(live().sort(), [...expired, ...foreign, fresh].sort());
  });

  test("--label narrows the sweep to sandboxes carrying the label", async () => {
    const { stdout } = await sweep("--older-than", OLDER_THAN, "--label", "job=b");
    assert.deepEqual(
      (JSON.parse(stdout) as SweepReport).sandboxes.map((sandbox) => sandbox.id),
      [expired[1]],
    );
  });

  test("--yes destroys exactly the owned expired sandboxes, verifies each, and leaves the rest", async () => {
    const { code, stdout, stderr } = await sweep("--older-than", OLDER_THAN, "--yes");
    assert.equal(code, EXIT.OK, stderr);
    const report = JSON.parse(stdout) as SweepReport;
    assert.equal(report.dryRun, false);
    const destroyed = report.sandboxes
      .filter((sandbox) => sandbox.outcome === "destroyed")
      .map((sandbox) => sandbox.id);
    assert.deepEqual(destroyed.sort(), [...expired].sort());
    for (const sandbox of report.sandboxes.filter((each) => each.outcome === "destroyed")) {
      assert.ok(
        sandbox.ageAtDestroyMs !== undefined && sandbox.ageAtDestroyMs >= TWO_HOURS_MS - 60_000,
        `each destroyed one's age when it was destroyed: ${sandbox.ageAtDestroyMs}`,
      );
    }
    assert.ok(report.sandboxes.every((each) => each.outcome === "destroyed" || each.ageAtDestroyMs === undefined));
    assert.deepEqual(live().sort(), [...foreign, fresh].sort(), "fresh and foreign sandboxes are untouched");
  });

  test("a destroy the provider refuses is reported as failed (exit 1), and the sandbox stays", async () => {
    const emulator = fixture.emulator();
    emulator.injectFault({ route: "DELETE /sandboxes/:id", fault: { kind: "status", status: 403 }, times: 20 });
    try {
      const { code, stdout } = await sweep("--older-than", "0s", "--yes");
      assert.equal(code, EXIT.FAILED);
      const [only] = (JSON.parse(stdout) as SweepReport).sandboxes;
      assert.equal(only?.id, fresh);
      assert.equal(only?.outcome, "failed");
      assert.ok(live().includes(fresh));
    } finally {
      emulator.clearFaults();
    }
  });

  test("without its credential, the sweep is skipped with one line and exit 3", async () => {
    const { code, stdout, stderr } = await runCli([
      "sweep",
      "--provider",
      "e2b",
      "--endpoint",
      fixture.emulator().url,
      "--older-than",
      "0s",
    ]);
    assert.equal(code, EXIT.NOT_CONFIGURED);
    assert.equal(stdout, "");
    assert.equal(stderr, "e2b: skipped, SANDPORT_E2B_API_KEY not set\n");
  });
});

describe("sandport sweep (local)", () => {
  const scratch = scratchDirectory("sweep");
  after(() => scratch.remove());
  const root = join(scratch.path, "root");

  test("destroys the owner's old sandboxes under the root, never another owner's", async () => {
    const ours = new LocalRuntime({ root, isolation: "none", owner: OWNER });
    const theirs = new LocalRuntime({ root, isolation: "none", owner: "someone-else" });
    const old = await ours.launch({});
    const other = await theirs.launch({});
    const { code, stdout, stderr } = await runCli([
      "sweep",
      "--provider",
      "local",
      ...localOptions(root),
      "--owner",
      OWNER,
      "--older-than",
      "0s",
      "--yes",
    ]);
    assert.equal(code, EXIT.OK, stderr);
    assert.match(stdout, new RegExp(`^${old.id} .* destroyed$`, "m"));
    // Progress off a terminal: a line per step, on stderr only.
    assert.match(stderr, /^… listing local sandboxes$/m);
    assert.match(stderr, new RegExp(`^✔ ${old.id}: destroyed at age \\S+$`, "m"));
    assert.doesNotMatch(stdout, /…|✔/);
    assert.equal(await ours.getById(old.id), undefined);
    assert.ok(await theirs.getById(other.id));
    await theirs.destroy(other);
  });

  test("--snapshots lists the owner's snapshots with their age, deletes the old ones with --yes, never another owner's", async () => {
    const ours = new LocalRuntime({ root, isolation: "none", owner: OWNER });
    const theirs = new LocalRuntime({ root, isolation: "none", owner: "someone-else" });
    const source = await ours.launch({});
    const otherSource = await theirs.launch({});
    const kept = await ours.snapshot(source, { labels: { job: "a" } });
    const labelled = await ours.snapshot(source, { labels: { job: "b" } });
    const foreign = await theirs.snapshot(otherSource, { labels: { job: "a" } });
    const sweep = (...args: string[]) =>
      runCli(["sweep", "--provider", "local", ...localOptions(root), "--owner", OWNER, "--snapshots", ...args]);
    const ids = async (runtime: LocalRuntime) => (await runtime.listSnapshots({})).map((snapshot) => snapshot.id);

    const dry = await sweep("--older-than", "1h", "--json");
    assert.equal(dry.code, EXIT.OK, dry.stderr);
    const listed = (JSON.parse(dry.stdout) as SweepReport).snapshots ?? [];
    assert.deepEqual(listed.map((snapshot) => snapshot.id).sort(), [kept.id, labelled.id].sort(), "only ours");
    for (const snapshot of listed) {
      assert.equal(snapshot.outcome, "kept: younger");
      assert.ok(snapshot.ageMs !== null && snapshot.ageMs >= 0 && snapshot.ageMs < 3_600_000, `age ${snapshot.ageMs}`);
    }

    const text = await sweep("--older-than", "0s");
    assert.match(text.stdout, new RegExp(`^${kept.id} .* job=a .*would delete$`, "m"));
    assert.match(text.stdout, /^dry run: pass --yes to delete 2 snapshot\(s\)$/m);
    assert.deepEqual((await ids(ours)).sort(), [kept.id, labelled.id].sort(), "a dry run deletes nothing");

    const narrowed = await sweep("--older-than", "0s", "--label", "job=b", "--yes", "--json");
    assert.equal(narrowed.code, EXIT.OK, narrowed.stderr);
    const report = JSON.parse(narrowed.stdout) as SweepReport;
    assert.deepEqual(
      report.snapshots?.map((snapshot) => [snapshot.id, snapshot.outcome]),
      [[labelled.id, "deleted"]],
    );
    assert.deepEqual(report.sandboxes, [], "the source sandbox carries no job label");
    assert.deepEqual(await ids(ours), [kept.id], "only the labelled snapshot went");
    assert.deepEqual(await ids(theirs), [foreign.id], "another owner's snapshot is untouched");

    const all = await sweep("--older-than", "0s", "--yes");
    assert.equal(all.code, EXIT.OK, all.stderr);
    assert.match(all.stderr, new RegExp(`^✔ ${kept.id}: deleted$`, "m"));
    assert.deepEqual(await ids(ours), []);
    assert.deepEqual(await ids(theirs), [foreign.id], "another owner's snapshot is still untouched");
    await theirs.deleteSnapshot(foreign);
    await theirs.destroy(otherSource);
  });
});

describe("sandport sweep (local leftovers)", () => {
  const scratch = scratchDirectory("sweep-leftovers");
  after(() => scratch.remove());
  const root = join(scratch.path, "root");
  const sweep = (...args: string[]) =>
    runCli(["sweep", "--provider", "local", ...localOptions(root), "--owner", OWNER, "--older-than", "1h", ...args]);

  test("reports the leftovers of launches killed midway that its runtime reclaimed: found, reclaimed, paths", async () => {
    mkdirSync(root, { recursive: true });
    const dead = spawnSync("/bin/true").pid;
    const staging = join(root, stagingLeftover(dead));
    mkdirSync(join(staging, "workspace"), { recursive: true });
    writeFileSync(join(staging, "sandbox.json"), "{}");
    // A sandbox cgroup named for this root and owner by a launch of a process now gone, where cgroups are writable.
    const parent = ownUnifiedCgroup();
    const cgroup = parent && join(parent, `sandport-sbx-killed.${dead}.1.${rootTag(root)}`);
    if (cgroup) mkdirSync(cgroup);
    const expected = [staging, ...(cgroup ? [cgroup] : [])].sort();

    const { code, stdout, stderr } = await sweep("--json");
    assert.equal(code, EXIT.OK, stderr);
    const { leftovers } = JSON.parse(stdout) as {
      leftovers: { found: number; reclaimed: number; items: { kind: string; path: string; reclaimed: boolean }[] };
    };
    assert.equal(leftovers.found, expected.length, JSON.stringify(leftovers));
    assert.equal(leftovers.reclaimed, expected.length);
    assert.deepEqual(leftovers.items.map((item) => item.path).sort(), expected);
    assert.deepEqual(
      leftovers.items.map((item) => [item.kind, item.reclaimed]).sort(),
      [["staging", true], ...(cgroup ? [["cgroup", true]] : [])].sort(),
    );
    for (const path of expected) assert.equal(existsSync(path), false, `${path} is gone`);

    const again = join(root, stagingLeftover(dead).replace("sbx-killed", "sbx-killed-2"));
    mkdirSync(again);
    const text = await sweep();
    assert.equal(text.code, EXIT.OK, text.stderr);
    assert.match(text.stdout, new RegExp(`^staging +${again.replaceAll(".", "\\.")} +reclaimed$`, "m"));
    assert.match(text.stdout, /^leftovers: 1 found, 1 reclaimed$/m);
    assert.match(text.stderr, /^✔ 1 leftover\(s\) no listing shows, 1 reclaimed$/m);
    const quiet = await sweep("--json");
    assert.deepEqual((JSON.parse(quiet.stdout) as { leftovers: unknown }).leftovers, {
      found: 0,
      reclaimed: 0,
      items: [],
    });
  });
});

/** This process's own cgroup in the unified hierarchy, when it may make cgroups there (else `undefined`). */
function ownUnifiedCgroup(): string | undefined {
  const path = /^0::(.*)$/m.exec(readFileSync("/proc/self/cgroup", "utf8"))?.[1];
  const mount = readFileSync("/proc/self/mountinfo", "utf8")
    .split("\n")
    .map((line) => line.split(" - "))
    .find(([, after]) => after?.startsWith("cgroup2 "))?.[0]
    ?.split(" ");
  if (path === undefined || !mount || mount[3] !== "/") return undefined;
  const directory = join(mount[4] ?? "", path);
  try {
    accessSync(directory, constants.W_OK);
    return directory;
  } catch {
    return undefined;
  }
}

/** The tag a local runtime of {@link OWNER} over `root` names its sandbox cgroups with. */
function rootTag(root: string): string {
  return createHash("sha256").update(`${root}\0${OWNER}`).digest("hex").slice(0, 16);
}

/** Why a local runtime here cannot bound workspaces (`undefined` when it can). */
function noDiskBound(): string | undefined {
  const declared = new LocalRuntime({ isolation: "none" }).capabilities.diskLimit;
  return declared === true ? undefined : `diskLimit is ${String(declared)} here (needs root and a loop device)`;
}

describe("sandport sweep (local, bounded workspaces)", { skip: noDiskBound() }, () => {
  const scratch = scratchDirectory("sweep-disk");
  const root = join(scratch.path, "root");
  const mounted = () =>
    readFileSync("/proc/self/mountinfo", "utf8")
      .split("\n")
      .map((line) => line.split(" ")[4] ?? "")
      .filter((mountPoint) => mountPoint.startsWith(`${root}/`));
  after(() => {
    // Should the sweep fail to, nothing is left mounted by this test all the same.
    for (const mountPoint of mounted()) execFileSync("/usr/bin/umount", [mountPoint]);
    scratch.remove();
  });

  test("unmounts the image of a sandbox nobody destroyed, and of a launch killed midway, leaving no loop device", async () => {
    const ours = new LocalRuntime({ root, isolation: "none", owner: OWNER });
    const left = await ours.launch({ resources: { diskMiB: 16 } });
    // A launch killed after mounting its image, before the rename: its staging directory, named for a dead process.
    const dead = spawnSync("/bin/true").pid;
    const staging = join(root, stagingLeftover(dead));
    mkdirSync(join(staging, "disk"), { recursive: true });
    writeFileSync(join(staging, "sandbox.json"), "{}");
    execFileSync("/usr/bin/truncate", ["-s", "16M", join(staging, "disk.img")]);
    execFileSync("/usr/sbin/mkfs.ext4", ["-q", "-F", join(staging, "disk.img")]);
    execFileSync("/usr/bin/mount", ["-o", "loop", join(staging, "disk.img"), join(staging, "disk")]);
    assert.equal(mounted().length, 2, "both images are mounted");

    const { code, stderr } = await runCli([
      "sweep",
      "--provider",
      "local",
      ...localOptions(root),
      "--owner",
      OWNER,
      "--older-than",
      "0s",
      "--yes",
    ]);
    assert.equal(code, EXIT.OK, stderr);
    assert.match(stderr, new RegExp(`^✔ ${left.id}: destroyed at age \\S+$`, "m"));
    assert.deepEqual(mounted(), [], "nothing is mounted under the root any more");
    assert.doesNotMatch(execFileSync("/usr/sbin/losetup", ["-a"], { encoding: "utf8" }), new RegExp(root));
    assert.equal(existsSync(staging), false, "the killed launch's staging directory is gone");
    assert.equal(await ours.getById(left.id), undefined);
  });
});

/**
 * A staging directory name as a launch of {@link OWNER} by process `pid` (now gone) leaves it:
 * `.staging-<id>.<pid>.<start time>.<owner tag>` (see the local runtime's staging names).
 */
function stagingLeftover(pid: number): string {
  const tag = createHash("sha256").update(OWNER).digest("hex").slice(0, 16);
  return `.staging-sbx-killed.${pid}.1.${tag}`;
}
