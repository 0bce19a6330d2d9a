// What an emulated E2B sandbox looks like from inside, through the real e2b SDK on the default
// backend: /home/user is real to commands, and a sandbox without internet has its own loopback.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import * as e2b from "e2b";
import { unusedPort } from "../../assertions/index.js";
import { bindScript, isolationSkipReason, probeScript } from "../harness/isolation.fixture.js";
import { type E2BEmulator, startE2BEmulator } from "./emulator.js";

const { Sandbox } = e2b;

describe("an emulated E2B sandbox looks like E2B's machine", { skip: await isolationSkipReason() }, () => {
  let emulator: E2BEmulator;
  before(async () => {
    emulator = await startE2BEmulator();
  });
  after(async () => {
    for (const { id } of emulator.liveSandboxes()) await Sandbox.kill(id, emulator.sdkOptions).catch(() => false);
    await emulator.stop();
  });
  const create = (extra: e2b.SandboxOpts = {}) =>
    Sandbox.create({ ...emulator.sdkOptions, timeoutMs: 60_000, ...extra });

  it("commands see /home/user as home and cwd: files written through the API are there, and back", async () => {
    const sandbox = await create();
    await sandbox.files.write("/home/user/x", "written by the files API\n");
    const result = await sandbox.commands.run('cat /home/user/x; pwd; echo "$HOME"; echo made > /home/user/y');
    assert.equal(result.stdout, "written by the files API\n/home/user\n/home/user\n");
    assert.equal(await sandbox.files.read("/home/user/y"), "made\n");
    await sandbox.kill();
  });

  it("a port bound in one sandbox without internet is not reachable from another (own loopback)", async () => {
    const port = await unusedPort();
    const [a, b] = await Promise.all([create({ allowInternetAccess: false }), create({ allowInternetAccess: false })]);
    const bound = await bindIn(a, port);
    try {
      assert.equal((await b.commands.run(probeScript(port))).stdout, "closed\n");
    } finally {
      await bound.kill();
    }
    // Control: sandboxes with internet share this machine's network, where the same probe finds the port.
    const [c, d] = await Promise.all([create(), create()]);
    const shared = await bindIn(c, port);
    try {
      assert.equal((await d.commands.run(probeScript(port))).stdout, "open\n");
    } finally {
      await shared.kill();
    }
    await Promise.all([a, b, c, d].map((sandbox) => sandbox.kill()));
  });
});

/** Starts {@link bindScript} in the background and resolves once it says `bound`. */
async function bindIn(sandbox: e2b.Sandbox, port: number): Promise<e2b.CommandHandle> {
  let onBound: () => void = () => {};
  const bound = new Promise<void>((resolve) => {
    onBound = resolve;
  });
  const handle = await sandbox.commands.run(bindScript(port), {
    background: true,
    onStdout: (data) => {
      if (data.includes("bound")) onBound();
    },
  });
  const ended = handle.wait().then(
    () => Promise.reject(new Error("the binding command ended before it bound")),
    (error: unknown) => Promise.reject(error),
  );
  await Promise.race([bound, ended]);
  ended.catch(() => {});
  return handle;
}
