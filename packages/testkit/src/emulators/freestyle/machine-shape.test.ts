// What an emulated Freestyle VM looks like from inside, through the real freestyle SDK on a
// provider-shaped backend: its workspaceDirectory (/workspace) is real to commands, and a VM without an
// egress rule has its own loopback.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type CreateVmOptions, Freestyle } from "freestyle";
import { unusedPort, waitFor } from "../../assertions/index.js";
import {
  bindScript,
  isolationSkipReason,
  probeScript,
  shapedBackend,
  sharedNamespacesSkipReason,
} from "../harness/isolation.fixture.js";
import { type FreestyleEmulator, startFreestyleEmulator } from "./emulator.js";

type Vm = Awaited<ReturnType<Freestyle["vms"]["create"]>>["vm"];

const egress: CreateVmOptions["firewall"] = {
  rules: [{ action: "allow", source: {}, destination: { public: true } }],
};

const sharedSkip = await sharedNamespacesSkipReason();

describe("an emulated Freestyle VM looks like the machine it describes", { skip: await isolationSkipReason() }, () => {
  let emulator: FreestyleEmulator;
  let backend: Awaited<ReturnType<typeof shapedBackend>>;
  let freestyle: Freestyle;
  before(async () => {
    backend = await shapedBackend("/workspace");
    emulator = await startFreestyleEmulator({ backend: backend.runtime });
    freestyle = new Freestyle(emulator.sdkOptions);
  });
  after(async () => {
    for (const { id } of emulator.liveSandboxes()) await freestyle.vms.delete(id).catch(() => undefined);
    await emulator.stop();
    await backend.dispose();
  });
  const create = async (firewall: CreateVmOptions["firewall"]) => (await freestyle.vms.create({ firewall })).vm;

  it("commands see /workspace as cwd: files written through the files API are there, and back", async () => {
    const vm = await create(egress);
    await vm.fs.writeTextFile("/workspace/x", "written\n");
    const result = await vm.exec("cat /workspace/x; pwd; echo made > /workspace/y");
    assert.deepEqual(result, { stdout: "written\n/workspace\n", stderr: "", statusCode: 0 });
    assert.equal(await vm.fs.readTextFile("/workspace/y"), "made\n");
    await vm.delete();
  });

  it("a port bound in one VM without egress is not reachable from another (own loopback)", async () => {
    const port = await unusedPort();
    const [a, b] = await Promise.all([create({ rules: [] }), create({ rules: [] })]);
    const binding = await bindIn(a, port);
    assert.equal((await b.exec(probeScript(port))).stdout, "closed\n");
    // Control: VMs with egress share this machine's network, where the same probe finds the port.
    const [c, d] = await Promise.all([create(egress), create(egress)]);
    const shared = await bindIn(c, port);
    assert.equal((await d.exec(probeScript(port))).stdout, "open\n");
    await Promise.all([a, b, c, d].map((vm) => vm.delete()));
    await Promise.all([binding.settled, shared.settled]);
  });

  it("the execs of a VM without egress share its loopback: a port one exec bound is open to the next", {
    skip: sharedSkip,
  }, async () => {
    const port = await unusedPort();
    const vm = await create({ rules: [] });
    const binding = await bindIn(vm, port);
    assert.equal((await vm.exec(probeScript(port))).stdout, "open\n");
    await vm.delete();
    await binding.settled;
  });
});

/** Starts {@link bindScript} and resolves once it has bound, with its exec (settled when the VM goes). */
async function bindIn(vm: Vm, port: number): Promise<{ readonly settled: Promise<unknown> }> {
  const settled = vm.exec(bindScript(port)).catch((error: unknown) => error);
  await waitFor(async () => await vm.fs.exists(`/workspace/bound-${port}`), { what: "the port to be bound" });
  return { settled };
}
