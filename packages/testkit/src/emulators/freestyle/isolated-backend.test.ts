// The Freestyle emulator over a LocalRuntime with bubblewrap namespaces: the
// workspace is really at /workspace inside commands, and a firewall without an
// egress rule really takes the VM off the network. The legacy SDK's
// shell-command file calls are tested here only: everything outside the
// workspace is read-only inside, so no path they are given reaches the host.

import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { env } from "node:process";
import { after, before, describe, it } from "node:test";
import { LocalRuntime } from "@sandport/local";
import { Freestyle } from "freestyle";
import { Freestyle as LegacyFreestyle } from "freestyle-sandboxes";
import { destroyEverySandbox } from "../harness/backend.js";
import { type FreestyleEmulator, startFreestyleEmulator } from "./emulator.js";

/** `undefined` when bubblewrap namespaces work here, else why the tests skip (CI sets SANDPORT_REQUIRE_BWRAP=1). */
async function namespacesSkipReason(): Promise<string | undefined> {
  const root = await mkdtemp(join(tmpdir(), "sandport-freestyle-probe-"));
  try {
    const runtime = new LocalRuntime({ root, isolation: "namespaces" });
    const handle = await runtime.launch({ network: false });
    await runtime.exec(handle, { argv: ["true"] });
    await runtime.destroy(handle);
    return undefined;
  } catch (error) {
    if (env.SANDPORT_REQUIRE_BWRAP === "1") throw error;
    return `bubblewrap namespaces are unusable here: ${error instanceof Error ? error.message : String(error)}`;
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

const interfaces = "awk 'NR > 2 { print $1 }' /proc/net/dev";

describe("Freestyle emulator over a namespaces backend", { skip: await namespacesSkipReason() }, () => {
  let root: string;
  let local: LocalRuntime;
  let emulator: FreestyleEmulator;
  let freestyle: Freestyle;

  before(async () => {
    root = await mkdtemp(join(tmpdir(), "sandport-freestyle-namespaces-"));
    // As the default backend: an emulated VM with an egress rule is a machine with open egress (see backend.ts).
    local = new LocalRuntime({ root, isolation: "namespaces", hostNetwork: true });
    emulator = await startFreestyleEmulator({ backend: local });
    freestyle = new Freestyle(emulator.sdkOptions);
  });

  after(async () => {
    await emulator.stop();
    await destroyEverySandbox(local);
    await rm(root, { recursive: true, force: true });
  });

  it("absolute workspace paths work inside commands; no egress rule means no network", async () => {
    const { vm } = await freestyle.vms.create({ firewall: { rules: [] } });
    await vm.fs.writeTextFile("/workspace/notes/a.txt", "absolute\n");
    const result = await vm.exec(`cd /workspace/notes && cat a.txt && pwd && ${interfaces}`);
    assert.deepEqual(result, { stdout: "absolute\n/workspace/notes\nlo:\n", stderr: "", statusCode: 0 });
    await vm.delete();

    const { vm: online } = await freestyle.vms.create({
      firewall: { rules: [{ action: "allow", source: {}, destination: { public: true } }] },
    });
    const hostInterfaces = (await readFile("/proc/net/dev", "utf8"))
      .split("\n")
      .slice(2)
      .filter((line) => line.trim() !== "")
      .map((line) => `${line.trim().split(/\s+/)[0]}\n`)
      .join("");
    assert.equal((await online.exec(interfaces)).stdout, hostInterfaces, "an egress rule shares the host's network");
    await online.delete();
    assert.deepEqual(emulator.liveSandboxes(), []);
  });

  it("the legacy SDK's shell-command mkdir/exists/stat/remove, with relative and absolute paths", async () => {
    const legacy = new LegacyFreestyle(emulator.sdkOptions);
    const { vm } = await legacy.vms.create({ workdir: "/workspace/app" });
    await vm.fs.writeFile("bin/all.bin", Buffer.alloc(256, 1));
    await vm.fs.mkdir("made/deep", true);
    await vm.fs.mkdir("/workspace/app/absolute/deep", true);
    assert.equal(await vm.fs.exists("made/deep"), true);
    assert.equal(await vm.fs.exists("/workspace/app/absolute/deep"), true);
    assert.equal(await vm.fs.exists("absent"), false);
    const stat = await vm.fs.stat("/workspace/app/bin/all.bin");
    assert.deepEqual([stat.size, stat.isFile, stat.isDirectory], [256, true, false]);
    const listing = await vm.fs.readDir("/workspace/app");
    assert.deepEqual(listing.map((entry) => `${entry.kind} ${entry.name}`).sort(), [
      "directory absolute",
      "directory bin",
      "directory made",
    ]);
    await vm.fs.remove("made", true);
    await vm.fs.remove("/workspace/app/absolute", true);
    assert.equal(await vm.fs.exists("made"), false);
    assert.equal(await vm.fs.exists("/workspace/app/absolute"), false);
    // Outside the workspace the sandbox is read-only.
    await assert.rejects(vm.fs.mkdir("/opt/sandport-escape"), /Failed to create directory/);
    await vm.delete();
  });
});
