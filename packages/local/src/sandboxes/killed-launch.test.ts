// Runtime processes SIGKILLed at random points of their launches leave staging directories and sandbox cgroups
// that no listing shows; a fresh runtime over the same root, in another cgroup, reclaims every one of them (found
// through the root's note of where its sandboxes' cgroups live), keeps every sandbox whose launch finished, and
// afterwards nothing is left: no staging directory, no cgroup, no process, and (under namespaces, where each sandbox
// takes a uid of its own) no uid marker but those of the sandboxes whose launch finished.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { probeCgroupHost } from "../cgroups/cgroup-host.js";
import { membersOf, removeCgroup } from "../cgroups/cgroups.js";
import { DEFAULT_SANDBOX_UIDS, LocalRuntime } from "../index.js";
import { runsAsRoot } from "../options.js";
import { bwrapSkipReason, ENTRY, runNodeChild, temporaryDirectory, waitFor } from "../runtime.fixture.js";

const TRIALS = 20;
const PARALLEL = 4;
const root = temporaryDirectory("killed-launch");
const markers = temporaryDirectory("killed-launch-uids");
after(async () => {
  await root.remove();
  await markers.remove();
});
/** The uid pool of every runtime here: the default range, markers in this file's own directory. */
const sandboxUids = { ...DEFAULT_SANDBOX_UIDS, directory: markers.path };

const host = await probeCgroupHost();
const skipNamespaces = await bwrapSkipReason();
/** The hierarchies a sandbox's cgroups can go to here: the unified one (freezer, tracking) and v1 memory and pids. */
const parents = [
  host.unified?.canKill ? host.unified.directory : undefined,
  host.legacy.memory?.directory,
  host.legacy.pids?.directory,
].filter((parent) => parent !== undefined);
const skip =
  host.unified?.canKill !== true
    ? "needs a writable cgroup v2 hierarchy with cgroup.kill (root, or a delegated subtree)"
    : new LocalRuntime({ isolation: "none" }).capabilities.lifecycle !== true
      ? "the runtime cannot freeze sandboxes here, so a default launch makes no cgroup"
      : false;

/** A cgroup of this test's own in each hierarchy: the children move into them, so their sandboxes' cgroups land there. */
const testCgroups = skip
  ? []
  : parents.map((parent) => join(parent, `sandport-test-killed-${randomBytes(4).toString("hex")}`));
after(async () => {
  for (const cgroup of testCgroups) await removeCgroup(cgroup.includes("/unified") ? 2 : 1, cgroup);
});

/** Cgroups directly under the test's cgroups: a launch's sandbox cgroups. */
function sandboxCgroups(): string[] {
  return testCgroups.flatMap((cgroup) =>
    readdirSync(cgroup, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(cgroup, entry.name)),
  );
}

/** The uid markers on disk (none where sandboxes take no uid of their own). */
function uidMarkers(): string[] {
  try {
    return readdirSync(markers.path).map((name) => join(markers.path, name));
  } catch {
    return [];
  }
}

function stagingDirectories(): string[] {
  return readdirSync(root.path).filter((name) => name.startsWith(".staging-"));
}

/**
 * One trial: a child moves itself into the test's cgroups, launches twice (in `isolation`, with limits on some
 * trials: the first use's own work, then a launch timed), then launches again and SIGKILLs itself `fraction` of
 * that time into it.
 */
async function trial(index: number, fraction: number): Promise<void> {
  const isolation = index % 2 === 0 && !skipNamespaces ? "namespaces" : "none";
  const labels = { trial: String(index) };
  const spec = index % 4 === 1 ? { resources: { memoryMiB: 64, maxProcesses: 64 }, labels } : { labels };
  const output = await runNodeChild(`
    import { writeFileSync } from "node:fs";
    for (const cgroup of ${JSON.stringify(testCgroups)}) writeFileSync(cgroup + "/cgroup.procs", String(process.pid));
    const { LocalRuntime } = await import(${JSON.stringify(ENTRY)});
    const runtime = new LocalRuntime(${JSON.stringify({ root: root.path, isolation, sandboxUids })});
    await runtime.launch(${JSON.stringify(spec)});
    const started = performance.now();
    await runtime.launch(${JSON.stringify(spec)});
    const launchMs = performance.now() - started;
    setTimeout(() => process.kill(process.pid, "SIGKILL"), ${fraction} * launchMs);
    for (;;) await runtime.launch(${JSON.stringify(spec)});
  `);
  assert.equal(output.code, null, `the child runtime was killed, not ended: ${output.stderr}`);
}

describe("launches killed midway", { skip }, () => {
  test(`${TRIALS} runtimes SIGKILLed at random points of a launch: a fresh runtime reclaims every leftover and nothing stays`, async () => {
    mkdirSync(root.path, { recursive: true });
    for (const cgroup of testCgroups) mkdirSync(cgroup);
    for (let start = 0; start < TRIALS; start += PARALLEL) {
      await Promise.all(Array.from({ length: PARALLEL }, (_, offset) => trial(start + offset, Math.random())));
    }
    // Under namespaces when it can, so that it reclaims uid markers too (a runtime takes uids only there, as root).
    const fresh = skipNamespaces ? "none" : "namespaces";
    const runtime = new LocalRuntime({ root: root.path, isolation: fresh, sandboxUids });
    const live = await runtime.findByLabels({});
    const kept = new Set((await Promise.all(live.map((handle) => readCgroupsOf(handle.id)))).flat());
    const leftCgroups = sandboxCgroups().filter((cgroup) => !kept.has(cgroup));
    assert.deepEqual(stagingDirectories(), [], "no staging directory is left");
    assert.deepEqual(leftCgroups, [], "no cgroup is left but those of sandboxes whose launch finished");
    const recorded = (await Promise.all(live.map((handle) => readUidMarkerOf(handle.id)))).filter((marker) => marker);
    assert.deepEqual(uidMarkers().sort(), recorded.sort(), "no uid marker is left but those of finished launches");
    if (!skipNamespaces && runsAsRoot()) assert.ok(recorded.length > 0, "the finished namespaces launches hold uids");
    const report = await runtime.reclaimLeftovers();
    assert.equal(report.reclaimed, report.found, `everything found was reclaimed: ${JSON.stringify(report.leftovers)}`);
    for (const cgroup of kept) assert.ok(statSync(cgroup).isDirectory(), `a finished launch's cgroup ${cgroup} stays`);
    // The sandboxes whose launch finished still work (a command joins their cgroups), then go with destroy.
    for (const handle of live.slice(0, 4)) {
      const isolation = Number(handle.labels.trial) % 2 === 0 && !skipNamespaces ? "namespaces" : "none";
      const owner = isolation === fresh ? runtime : new LocalRuntime({ root: root.path, isolation, sandboxUids });
      assert.equal((await owner.exec(handle, { argv: ["true"] })).exitCode, 0);
    }
    await Promise.all(live.map((handle) => runtime.destroy(handle)));
    assert.deepEqual(sandboxCgroups(), [], "no cgroup is left at all");
    assert.deepEqual(uidMarkers(), [], "no uid marker is left at all");
    const members = async () => (await Promise.all(testCgroups.map((cgroup) => membersOf(cgroup)))).flat();
    assert.ok(await waitFor(async () => (await members()).length === 0, 5_000), `processes left: ${await members()}`);
    console.log(
      `${TRIALS} trials: ${live.length} launches finished, ${report.found} leftovers reclaimed (${summary(report.leftovers)})`,
    );
  });
});

/** The uid marker a sandbox's record names, if any. */
async function readUidMarkerOf(id: string): Promise<string | undefined> {
  const record = JSON.parse(await readFile(join(root.path, id, "sandbox.json"), "utf8")) as { uidMarker?: string };
  return record.uidMarker;
}

/** The cgroup directories a sandbox's record names. */
async function readCgroupsOf(id: string): Promise<string[]> {
  const record = JSON.parse(await readFile(join(root.path, id, "sandbox.json"), "utf8")) as {
    cgroups?: { limits: { directory: string }[]; tracking?: { directory: string }; freezer?: { directory: string } };
  };
  const cgroups = record.cgroups;
  if (!cgroups) return [];
  return [
    ...cgroups.limits,
    ...(cgroups.tracking ? [cgroups.tracking] : []),
    ...(cgroups.freezer ? [cgroups.freezer] : []),
  ].map((cgroup) => cgroup.directory);
}

function summary(leftovers: readonly { kind: string }[]): string {
  const counts = new Map<string, number>();
  for (const { kind } of leftovers) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  return [...counts].map(([kind, count]) => `${count} ${kind}`).join(", ") || "none";
}
