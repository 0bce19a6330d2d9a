// Under namespaceScope "sandbox" a launch starts its sandbox's namespace holder before it writes the sandbox's
// record. A runtime process SIGKILLed in between leaves the holder running, and with one sandboxUser for every
// sandbox its uid names no sandbox: a fresh runtime over the same root finds it by its launch, named in its own
// environment, and kills it; a live sandbox's holder, and another root's, are left alone.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { after, describe, test } from "node:test";
import { LocalRuntime } from "../index.js";
import { LEGACY_SANDBOX_USER, runsAsRoot } from "../options.js";
import { HOLDER_VARIABLE } from "../processes/sandbox-namespaces.js";
import { bwrapSkipReason, ENTRY, runNodeChild, temporaryDirectory, waitFor } from "../runtime.fixture.js";

const skip = runsAsRoot() ? await bwrapSkipReason() : 'namespaceScope "sandbox" needs a root runtime';
const [a, b] = [temporaryDirectory("killed-holder-a"), temporaryDirectory("killed-holder-b")];
after(async () => {
  await Promise.all([a.remove(), b.remove()]);
});

/** One user for every sandbox: the holder's uid cannot tell whose it is. */
const options = (root: string) =>
  ({ root, isolation: "namespaces", namespaceScope: "sandbox", sandboxUser: LEGACY_SANDBOX_USER }) as const;

/** The pids whose own environment names a holder of sandbox `id`. */
function holdersOf(id: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync("/proc").filter((entry) => /^\d+$/.test(entry))) {
    try {
      const environment = readFileSync(`/proc/${name}/environ`, "latin1").split("\0");
      if (environment.some((entry) => entry.startsWith(`${HOLDER_VARIABLE}=sandport-${id}.`))) pids.push(Number(name));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

/** A child runtime over `root` that SIGKILLs itself as its launch makes the sandbox's staging directory. */
async function killedLaunch(root: string): Promise<string> {
  const output = await runNodeChild(`
    import promises from "node:fs/promises";
    import { syncBuiltinESMExports } from "node:module";
    const mkdir = promises.mkdir;
    promises.mkdir = async (path, ...rest) => {
      const staging = /\\/\\.staging-(sbx-[A-Za-z0-9]+)/.exec(String(path));
      if (staging && String(path).startsWith(${JSON.stringify(`${root}/`)})) {
        console.log(staging[1]);
        process.kill(process.pid, "SIGKILL");
      }
      return mkdir(path, ...rest);
    };
    syncBuiltinESMExports();
    const { LocalRuntime } = await import(${JSON.stringify(ENTRY)});
    await new LocalRuntime(${JSON.stringify(options(root))}).launch();
    console.log("launched");
  `);
  assert.equal(output.code, null, `the child was killed midway, not ended: ${output.stdout} ${output.stderr}`);
  const id = output.stdout.trim();
  assert.match(id, /^sbx-/, "the child named the sandbox it was launching");
  return id;
}

describe("namespace holders of launches killed midway (one sandboxUser)", { skip }, () => {
  test("a fresh runtime kills its root's killed launches' holders, and keeps a live sandbox's and another root's", async () => {
    const live = await new LocalRuntime(options(a.path)).launch();
    const otherRoots = await killedLaunch(b.path);
    const killed = await killedLaunch(a.path);
    assert.ok(holdersOf(killed).length > 0, "the killed launch left its holder running");
    assert.ok(holdersOf(otherRoots).length > 0, "so did the other root's");

    const fresh = new LocalRuntime(options(a.path));
    const report = await fresh.reclaimLeftovers();
    const processes = report.leftovers.filter((leftover) => leftover.kind === "process");
    assert.ok(processes.length > 0 && processes.every((leftover) => leftover.reclaimed), JSON.stringify(processes));
    assert.ok(await waitFor(() => holdersOf(killed).length === 0, 5_000), `still running: ${holdersOf(killed)}`);
    assert.ok(holdersOf(otherRoots).length > 0, "another root's holder is its own runtimes' to reclaim");
    assert.equal((await fresh.exec(live, { argv: ["true"] })).exitCode, 0, "the live sandbox keeps its namespaces");

    await fresh.destroy(live);
    await new LocalRuntime(options(b.path)).reclaimLeftovers();
    assert.ok(await waitFor(() => holdersOf(otherRoots).length === 0, 5_000), "a runtime over that root reclaims it");
  });
});
