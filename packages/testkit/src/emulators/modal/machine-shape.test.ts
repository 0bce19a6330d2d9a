// What an emulated Modal sandbox looks like from inside, through the real modal SDK on a
// provider-shaped backend: its workspacePath (/workspace) is real to commands, and every sandbox has its
// own loopback (the backend launches a sandbox without blockNetwork with its default, no network).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { unusedPort, waitFor } from "../../assertions/index.js";
import {
  bindScript,
  isolationSkipReason,
  probeScript,
  shapedBackend,
  sharedNamespacesSkipReason,
} from "../harness/isolation.fixture.js";
import { type ModalEmulator, startModalEmulator } from "./emulator.js";
import { clientFor, loadModal, type ModalClient } from "./sdk.fixture.js";

type Sandbox = Awaited<ReturnType<ModalClient["sandboxes"]["create"]>>;

const sharedSkip = await sharedNamespacesSkipReason();

describe("an emulated Modal sandbox looks like the machine it describes", { skip: await isolationSkipReason() }, () => {
  let emulator: ModalEmulator;
  let backend: Awaited<ReturnType<typeof shapedBackend>>;
  let client: ModalClient;
  let create: () => Promise<Sandbox>;
  before(async () => {
    const modal = await loadModal();
    backend = await shapedBackend("/workspace");
    emulator = await startModalEmulator({ backend: backend.runtime });
    client = clientFor(modal, emulator).client;
    const app = await client.apps.fromName("sandport-tests", { createIfMissing: true });
    create = () => client.sandboxes.create(app, client.images.fromRegistry("alpine:3.21"), { timeoutMs: 60_000 });
  });
  after(async () => {
    for (const { id } of emulator.liveSandboxes()) {
      await (await client.sandboxes.fromId(id)).terminate().catch(() => undefined);
    }
    await emulator.stop();
    await backend.dispose();
  });

  it("commands see /workspace as cwd: files written through the filesystem API are there, and back", async () => {
    const sandbox = await create();
    await sandbox.filesystem.writeText("written\n", "/workspace/x");
    assert.equal(await run(sandbox, "cat /workspace/x; pwd; echo made > /workspace/y"), "written\n/workspace\n");
    assert.equal(await sandbox.filesystem.readText("/workspace/y"), "made\n");
    await sandbox.terminate();
  });

  it("a port bound in one sandbox is not reachable from another (own loopback)", async () => {
    const port = await unusedPort();
    const [a, b] = await Promise.all([create(), create()]);
    await a.exec(["sh", "-c", bindScript(port)]);
    await waitFor(async () => (await run(a, `test -e bound-${port} && echo yes || true`)) === "yes\n", {
      what: "the port to be bound",
    });
    assert.equal(await run(b, probeScript(port)), "closed\n");
    // Control: the probe finds a port bound beside it (in the same command).
    const other = await unusedPort();
    const control = `${bindScript(other)} & while ! test -e bound-${other}; do sleep 0.05; done; ${probeScript(other)}; kill $!`;
    assert.equal(await run(b, control), "bound\nopen\n");
    await Promise.all([a.terminate(), b.terminate()]);
  });

  it("the execs of a sandbox share its loopback: a port one exec bound is open to the next", {
    skip: sharedSkip,
  }, async () => {
    const port = await unusedPort();
    const sandbox = await create();
    await sandbox.exec(["sh", "-c", bindScript(port)]);
    await waitFor(async () => (await run(sandbox, `test -e bound-${port} && echo yes || true`)) === "yes\n", {
      what: "the port to be bound",
    });
    assert.equal(await run(sandbox, probeScript(port)), "open\n");
    await sandbox.terminate();
  });
});

/** Runs a shell script and returns its stdout once it exited 0. */
async function run(sandbox: Sandbox, script: string): Promise<string> {
  const command = await sandbox.exec(["sh", "-c", script], { timeoutMs: 30_000 });
  const [stdout, stderr, exitCode] = await Promise.all([
    command.stdout.readText(),
    command.stderr.readText(),
    command.wait(),
  ]);
  assert.equal(exitCode, 0, stderr);
  return stdout;
}
