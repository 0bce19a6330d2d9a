// What an emulated Vercel sandbox looks like from inside, through the real @vercel/sandbox SDK on
// a provider-shaped backend: /vercel/sandbox is real to commands (scripts included, which the emulator
// does not rewrite), and a sandbox with networkPolicy deny-all has its own loopback.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Sandbox } from "@vercel/sandbox";
import { unusedPort, waitFor } from "../../assertions/index.js";
import {
  bindScript,
  isolationSkipReason,
  probeScript,
  shapedBackend,
  sharedNamespacesSkipReason,
} from "../harness/isolation.fixture.js";
import { startVercelEmulator, type VercelEmulator } from "./emulator.js";

type CreateParams = NonNullable<Parameters<typeof Sandbox.create>[0]>;

const sharedSkip = await sharedNamespacesSkipReason();

describe("an emulated Vercel sandbox looks like Vercel's machine", { skip: await isolationSkipReason() }, () => {
  let emulator: VercelEmulator;
  let backend: Awaited<ReturnType<typeof shapedBackend>>;
  before(async () => {
    backend = await shapedBackend("/vercel/sandbox");
    emulator = await startVercelEmulator({ backend: backend.runtime });
  });
  after(async () => {
    for (const { id } of emulator.liveSandboxes()) {
      await Sandbox.get({ ...emulator.sdkOptions, name: id })
        .then((sandbox) => sandbox.delete())
        .catch(() => undefined);
    }
    await emulator.stop();
    await backend.dispose();
  });
  const create = (extra: Partial<CreateParams> = {}) =>
    Sandbox.create({ ...emulator.sdkOptions, timeout: 60_000, ...extra } as CreateParams);
  const shell = async (sandbox: Sandbox, script: string) =>
    (await sandbox.runCommand({ cmd: "sh", args: ["-c", script] })).stdout();

  it("a script sees /vercel/sandbox as its cwd: written files are there, and back", async () => {
    const sandbox = await create();
    await sandbox.writeFiles([{ path: "/vercel/sandbox/x", content: Buffer.from("written\n") }]);
    const out = await shell(sandbox, "cat /vercel/sandbox/x; pwd; echo made > /vercel/sandbox/y");
    assert.equal(out, "written\n/vercel/sandbox\n");
    assert.equal((await sandbox.readFileToBuffer({ path: "/vercel/sandbox/y" }))?.toString(), "made\n");
    await sandbox.delete();
  });

  it("a port bound in one deny-all sandbox is not reachable from another (own loopback)", async () => {
    const port = await unusedPort();
    const denied = { networkPolicy: "deny-all" } as Partial<CreateParams>;
    const [a, b] = await Promise.all([create(denied), create(denied)]);
    await bindIn(a, port);
    assert.equal(await shell(b, probeScript(port)), "closed\n");
    // Control: allow-all sandboxes share this machine's network, where the same probe finds the port.
    const [c, d] = await Promise.all([create(), create()]);
    await bindIn(c, port);
    assert.equal(await shell(d, probeScript(port)), "open\n");
    await Promise.all([a, b, c, d].map((sandbox) => sandbox.delete()));
  });

  it("the commands of a deny-all sandbox share its loopback: a port a detached command bound is open to the next", {
    skip: sharedSkip,
  }, async () => {
    const port = await unusedPort();
    const sandbox = await create({ networkPolicy: "deny-all" } as Partial<CreateParams>);
    await bindIn(sandbox, port);
    assert.equal(await shell(sandbox, probeScript(port)), "open\n");
    await sandbox.delete();
  });
});

/** Starts {@link bindScript} detached and resolves once it has bound (its marker file exists). */
async function bindIn(sandbox: Sandbox, port: number): Promise<void> {
  await sandbox.runCommand({ cmd: "sh", args: ["-c", bindScript(port)], detached: true });
  await waitFor(async () => (await sandbox.readFileToBuffer({ path: `bound-${port}` })) !== null, {
    what: "the port to be bound",
  });
}
