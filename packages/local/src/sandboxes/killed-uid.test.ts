// A root runtime process SIGKILLed right after its launch took a uid, before the sandbox's record existed, leaves
// that uid's marker behind; a fresh runtime over the same root gives it back at its first use, while a live
// sandbox keeps its uid and another root's killed launch keeps its marker (a runtime over that root reclaims it).
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { DEFAULT_SANDBOX_UIDS, LocalRuntime } from "../index.js";
import { runsAsRoot } from "../options.js";
import { bwrapSkipReason, ENTRY, runNodeChild, temporaryDirectory } from "../runtime.fixture.js";

const skip =
  (await bwrapSkipReason()) ??
  (runsAsRoot() ? undefined : "sandboxes take uids of their own only under a root runtime");
const [a, b] = [temporaryDirectory("killed-uid-a"), temporaryDirectory("killed-uid-b")];
const markers = temporaryDirectory("killed-uid-markers");
after(async () => {
  await Promise.all([a.remove(), b.remove(), markers.remove()]);
});
const sandboxUids = { ...DEFAULT_SANDBOX_UIDS, directory: markers.path };
const [rootA, rootB] = [a.path, b.path];

/** The uid markers (named by their uid), without the drafts a launch writes before it links one. */
function markerPaths(): string[] {
  return readdirSync(markers.path)
    .filter((name) => /^\d+$/.test(name))
    .map((name) => join(markers.path, name))
    .sort();
}

/** Drafts (`.taking-*`) a launch killed before it removed its own left. */
function drafts(): string[] {
  return readdirSync(markers.path).filter((name) => name.startsWith(".taking-"));
}

/** A child runtime over `root` that SIGKILLs itself as soon as its launch has written a uid marker. */
async function killedLaunch(root: string): Promise<string> {
  const before = new Set(readdirSync(markers.path));
  // The runtime makes its marker with fs/promises' link (a whole draft linked to the uid's name): the child's
  // own, patched before the runtime is loaded, dies right after that link.
  const output = await runNodeChild(`
    import promises from "node:fs/promises";
    import { syncBuiltinESMExports } from "node:module";
    const link = promises.link;
    promises.link = async (existing, path, ...rest) => {
      await link(existing, path, ...rest);
      if (String(path).startsWith(${JSON.stringify(`${markers.path}/`)})) process.kill(process.pid, "SIGKILL");
    };
    syncBuiltinESMExports();
    const { LocalRuntime } = await import(${JSON.stringify(ENTRY)});
    const runtime = new LocalRuntime(${JSON.stringify({ root, isolation: "namespaces", sandboxUids })});
    await runtime.launch();
    console.log("launched");
  `);
  assert.equal(output.code, null, `the child was killed midway, not ended: ${output.stdout} ${output.stderr}`);
  const added = readdirSync(markers.path).filter((name) => !before.has(name) && /^\d+$/.test(name));
  assert.equal(added.length, 1, "the killed launch left one marker");
  const path = join(markers.path, added[0] as string);
  const id = readFileSync(path, "utf8").split("\n")[0] as string;
  assert.ok(!existsSync(join(root, id)), "it was killed before its sandbox existed");
  return path;
}

describe("uid markers of launches killed midway (root runtime)", { skip }, () => {
  test("a fresh runtime gives back its root's killed launches' uids, keeps a live sandbox's and another root's", async () => {
    mkdirSync(markers.path, { recursive: true, mode: 0o700 });
    const first = new LocalRuntime({ root: rootA, isolation: "namespaces", sandboxUids });
    const live = await first.launch();
    const liveMarker = (JSON.parse(readFileSync(join(rootA, live.id, "sandbox.json"), "utf8")) as { uidMarker: string })
      .uidMarker;
    const otherRoots = await killedLaunch(rootB);
    const killed = await killedLaunch(rootA);
    assert.deepEqual(markerPaths(), [liveMarker, otherRoots, killed].sort());

    const fresh = new LocalRuntime({ root: rootA, isolation: "namespaces", sandboxUids });
    assert.deepEqual(
      (await fresh.findByLabels({})).map((handle) => handle.id),
      [live.id],
    );
    assert.deepEqual(markerPaths(), [liveMarker, otherRoots].sort(), "the killed launch's uid is free again");
    const report = await fresh.reclaimLeftovers();
    const uids = report.leftovers.filter((leftover) => leftover.kind === "uid" && /\/\d+$/.test(leftover.path));
    assert.deepEqual(uids, [{ kind: "uid", path: killed, reclaimed: true }]);
    assert.equal((await fresh.exec(live, { argv: ["true"] })).exitCode, 0, "the live sandbox still works");

    await fresh.destroy(live);
    assert.deepEqual(markerPaths(), [otherRoots], "destroy gives back the live sandbox's uid");
    await new LocalRuntime({ root: rootB, isolation: "namespaces", sandboxUids }).findByLabels({});
    assert.deepEqual(markerPaths(), [], "a runtime over the other root gives back its killed launch's uid");
    assert.deepEqual(drafts(), [], "and the killed launches' drafts are gone");
  });
});
