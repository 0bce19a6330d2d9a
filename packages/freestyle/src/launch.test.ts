// launch through the real freestyle SDK against the emulator: what a create
// sends (marks, lifetime, persistence, firewall), what Freestyle cannot store
// refused before any request, the launch env kept outside the workspace, and
// a failed setup or an expired lifetime leaving nothing behind.
import assert from "node:assert/strict";
import { test } from "node:test";
import { LAUNCH_KEY_LABEL, OWNER_LABEL } from "@sandport/core";
import { expectCode, waitFor } from "@sandport/testkit/assertions";
import { defaultBackendIsolation } from "@sandport/testkit/emulators";
import { Freestyle } from "freestyle";
import { emulated } from "../test/emulated.js";
import { slugFor } from "./ownership.js";

const CREATE = "POST /v5/vms";
const EXEC = "POST /v5/vms/:id/exec-await";

/** Every create body and exec body the runtime sent, through a recording transport. */
const creates: Record<string, unknown>[] = [];
const execs: Record<string, unknown>[] = [];
const { emulator, runtime, runtimeWith } = await emulated({
  owner: "launch-tests",
  persistence: { idleTimeoutSeconds: 900 },
  fetch: (input, init) => {
    const url = String(input);
    if (init?.method === "POST" && url.endsWith("/v5/vms")) creates.push(JSON.parse(String(init.body)));
    if (url.endsWith("/exec-await")) execs.push(JSON.parse(String(init?.body)));
    return globalThis.fetch(input, init);
  },
});
const freestyle = new Freestyle(emulator.sdkOptions);

test("a create carries the labels, owner and launch key, a slug under the prefix, every lifetime field and the firewall", async () => {
  creates.length = 0;
  const handle = await runtime.launch({ labels: { job: "42" }, lifetimeMs: 90_500, launchKey: "key-1" });
  assert.deepEqual(handle, {
    id: handle.id,
    provider: "freestyle",
    labels: { job: "42" },
    // What the create's answer says the VM has: freestyle/ubuntu's size (4 vCPU, 8 GiB, 32 GB).
    resources: { cpus: 4, memoryMiB: 8192, diskMiB: 32_768 },
  });
  assert.deepEqual(creates, [
    {
      snapshotId: "freestyle/ubuntu",
      slug: slugFor("sandport", "launch-tests", "key-1"),
      metadata: { job: "42", [OWNER_LABEL]: "launch-tests", [LAUNCH_KEY_LABEL]: "key-1" },
      ttlSeconds: 91,
      autoDeleteSeconds: -1,
      idleTimeoutSeconds: 900,
      maxRunSeconds: -1,
      firewall: { rules: [{ action: "allow", source: {}, destination: { public: true } }] },
    },
  ]);
  assert.match(String(creates[0]?.slug), /^sandport-[0-9a-f]{32}$/);
  const data = await freestyle.vms.get(handle.id);
  assert.deepEqual([data.ttlSeconds, data.idleTimeoutSeconds, data.state], [91, 900, "running"]);
  await runtime.destroy(handle);
});

test("network false (the default) creates the VM with no firewall rule at all", async () => {
  creates.length = 0;
  const denied = runtimeWith({ network: false });
  // The emulator's default backend takes a VM off the network only with one namespace set per sandbox (as
  // root); elsewhere it refuses. The body is what matters here.
  const backend = await defaultBackendIsolation();
  if (backend.isolated && backend.namespaceScope === "sandbox") await denied.destroy(await denied.launch());
  else await expectCode(denied.launch(), "INVALID_REQUEST");
  assert.deepEqual(creates[0]?.firewall, { rules: [] });
  assert.deepEqual(await denied.settle(), []);
});

test("what Freestyle cannot store or do is refused before any request", async () => {
  emulator.resetRequests();
  const many = Object.fromEntries(Array.from({ length: 63 }, (_, index) => [`l${index}`, "v"]));
  await expectCode(runtime.launch({ labels: { long: "x".repeat(64) } }), "INVALID_REQUEST");
  await expectCode(runtime.launch({ labels: { empty: "" } }), "INVALID_REQUEST");
  await expectCode(runtime.launch({ labels: many }), "INVALID_REQUEST");
  await expectCode(runtime.launch({ launchKey: "k".repeat(64) }), "INVALID_REQUEST");
  await expectCode(runtime.launch({ env: { SANDPORT_EXEC_ID: "forged" } }), "INVALID_REQUEST");
  await expectCode(runtime.launch({ env: { BIG: "x".repeat(1024 * 1024) } }), "INVALID_REQUEST");
  await expectCode(runtime.launch({ labels: { "sandport.owner": "me" } }), "INVALID_REQUEST");
  await expectCode(runtime.launch({ resources: { cpus: 2 } }), "UNSUPPORTED");
  await expectCode(runtime.launch({ ports: [8080] }), "UNSUPPORTED");
  assert.equal(emulator.countRequests(), 0);
  const fits = await runtime.launch({
    labels: { ...Object.fromEntries(Object.entries(many).slice(2)), v: "x".repeat(63) },
  });
  await runtime.destroy(fits);
});

test("the launch env is written once, as the setup command's stdin, to a 0600 file outside the workspace", async () => {
  execs.length = 0;
  const secret = "s3cr3t 'quoted' $(not run)";
  const handle = await runtime.launch({ env: { TOKEN: secret } });
  assert.equal(execs.length, 1, "one setup command");
  assert.ok(!String(execs[0]?.command).includes("s3cr3t"), "the value is not in the command line");
  assert.equal(
    Buffer.from(String(execs[0]?.stdin), "base64").toString(),
    `export TOKEN='s3cr3t '\\''quoted'\\'' $(not run)'\n`,
  );
  assert.equal((await runtime.exec(handle, { shell: 'printf %s "$TOKEN"' })).stdout, secret);
  assert.equal((await runtime.exec(handle, { shell: "stat -c %a ../.sandport/env" })).stdout.trim(), "600");
  assert.deepEqual(await runtime.listDir(handle, "."), [], "nothing of the runtime's in the workspace");
  await runtime.destroy(handle);
});

test("a launch key is used once: a second create with it is refused, and leaves the first VM alone", async () => {
  const first = await runtime.launch({ launchKey: "once" });
  const again = await expectCode(runtime.launch({ launchKey: "once" }), "INVALID_REQUEST");
  assert.match(again.message, /launch key once exists already/);
  assert.deepEqual(await runtime.settle(), []);
  assert.deepEqual(
    (await runtime.findByLabels({ [LAUNCH_KEY_LABEL]: "once" })).map((handle) => handle.id),
    [first.id],
  );
  await runtime.destroy(first);
});

test("a VM whose setup failed is destroyed, not left behind", async () => {
  const before = emulator.liveSandboxes().length;
  emulator.injectFault({ route: EXEC, fault: { kind: "status", status: 500 } });
  // A launch env is what needs a setup command (without one the create is the launch's only request).
  await expectCode(runtime.launch({ labels: { case: "setup-failed" }, env: { A: "1" } }), "PROVIDER_UNAVAILABLE");
  assert.deepEqual(await runtime.settle(), []);
  assert.equal(emulator.liveSandboxes().length, before);
  assert.equal(emulator.countRequests(CREATE) > 0, true);
});

test("an unknown snapshot is the caller's mistake: INVALID_REQUEST, nothing created", async () => {
  const before = emulator.liveSandboxes().length;
  await expectCode(runtime.launch({ template: "no-such/snapshot" }), "INVALID_REQUEST");
  assert.equal(emulator.liveSandboxes().length, before);
});

test("the lifetime is a deadline: the VM is deleted when it ends", async () => {
  const handle = await runtime.launch({ lifetimeMs: 1_000 });
  // An ordering, not a window: alive once launched, then gone by itself.
  assert.ok(await runtime.getById(handle.id), "alive before its lifetime");
  await waitFor(async () => (await runtime.getById(handle.id)) === undefined, { timeoutMs: 5_000 });
  await runtime.destroy(handle);
});

test("the handle's resources are the size Freestyle answers for the VM's snapshot, on launch and on reattach", async () => {
  const small = runtimeWith({ snapshot: "freestyle/ubuntu-sm" });
  const handle = await small.launch();
  try {
    assert.deepEqual(handle.resources, { cpus: 2, memoryMiB: 4096, diskMiB: 16_384 });
    assert.deepEqual((await small.getById(handle.id))?.resources, handle.resources);
    const [listed] = (await small.findByLabels({})).filter((found) => found.id === handle.id);
    assert.deepEqual(listed?.resources, handle.resources);
  } finally {
    await small.destroy(handle);
  }
});
