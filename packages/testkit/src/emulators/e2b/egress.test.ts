// E2B's egress rules through the real e2b SDK: allowOut under a deny-all is kept on the sandbox, reported
// by getInfo, and enforced from inside by the backend; a backend that cannot enforce it fails the create.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { LocalRuntime } from "@sandport/local";
import * as e2b from "e2b";
import { destroyEverySandbox } from "../harness/backend.js";
import {
  CONFORMANCE_EGRESS_NAMES,
  conformanceEgressResolver,
  type EgressServers,
  egressSkipReason,
  fetchCommand,
  startEgressServers,
} from "../harness/egress.fixture.js";
import { backendPolicy } from "./egress.js";
import { type E2BEmulator, startE2BEmulator } from "./emulator.js";

const { Sandbox } = e2b;
const { allowed, denied } = CONFORMANCE_EGRESS_NAMES;
// Awaited before any suite is declared: a suite declared after an await is not run under --test-force-exit.
const unenforced = await egressSkipReason();

/** Runs `command` in `sandbox`: its stdout, or `failed` when it exits non-zero. */
async function outcome(sandbox: e2b.Sandbox, command: string): Promise<string> {
  try {
    return (await sandbox.commands.run(command, { timeoutMs: 30_000 })).stdout;
  } catch (error) {
    if (error instanceof e2b.CommandExitError) return "failed";
    throw error;
  }
}

describe("E2B egress rules become the backend's port policy", () => {
  it("deny-all with allowOut is an allow list (addresses as /32, 8.8.8.8 with a domain); the rest as E2B reads it", () => {
    assert.equal(backendPolicy({ allowInternetAccess: true }), "all");
    assert.equal(backendPolicy({ allowInternetAccess: false }), "none");
    assert.equal(backendPolicy({ allowInternetAccess: true, denyOut: ["0.0.0.0/0"] }), "none");
    assert.equal(backendPolicy({ allowInternetAccess: true, allowOut: ["1.1.1.1"] }), "all", "nothing denied");
    assert.deepEqual(
      backendPolicy({ allowInternetAccess: true, allowOut: ["1.1.1.1", "10.0.0.0/8"], denyOut: ["0.0.0.0/0"] }),
      { allow: ["1.1.1.1/32", "10.0.0.0/8"] },
    );
    assert.deepEqual(backendPolicy({ allowInternetAccess: false, allowOut: ["Example.com", "*.npmjs.org"] }), {
      allow: ["example.com", "*.npmjs.org", "8.8.8.8/32"],
    });
    assert.throws(
      () => backendPolicy({ allowInternetAccess: true, denyOut: ["8.8.8.8"] }),
      /deny list, which the emulator's backend cannot enforce/,
    );
  });
});

describe("E2B egress rules are enforced from inside an emulated sandbox", { skip: unenforced }, () => {
  let servers: EgressServers;
  let emulator: E2BEmulator;
  before(async () => {
    servers = await startEgressServers();
    emulator = await startE2BEmulator({ egressResolver: conformanceEgressResolver });
  });
  after(async () => {
    await emulator?.stop();
    await servers?.close();
  });

  it("an allowed name is reached and a denied one is not; getInfo reports the rules", async () => {
    const sandbox = await Sandbox.create({
      ...emulator.sdkOptions,
      timeoutMs: 60_000,
      network: { allowOut: [allowed, "127.0.0.1"], denyOut: [e2b.ALL_TRAFFIC] },
    });
    try {
      assert.equal(await outcome(sandbox, fetchCommand(`http://${allowed}:${servers.allowedPort}/`)), "allowed");
      assert.equal(await outcome(sandbox, fetchCommand(`http://${denied}:${servers.deniedPort}/`)), "failed");
      assert.equal(await outcome(sandbox, fetchCommand(`http://127.0.0.2:${servers.deniedPort}/`)), "failed");
      const info = await Sandbox.getInfo(sandbox.sandboxId, emulator.sdkOptions);
      assert.deepEqual(info.network?.allowOut, [allowed, "127.0.0.1"]);
      assert.deepEqual(info.network?.denyOut, ["0.0.0.0/0"]);
    } finally {
      await sandbox.kill();
    }
  });

  it("allowInternetAccess: false reaches neither the name nor the address", async () => {
    const sandbox = await Sandbox.create({ ...emulator.sdkOptions, timeoutMs: 60_000, allowInternetAccess: false });
    try {
      assert.equal(await outcome(sandbox, fetchCommand(`http://${allowed}:${servers.allowedPort}/`)), "failed");
      assert.equal(await outcome(sandbox, fetchCommand(`http://127.0.0.1:${servers.allowedPort}/`)), "failed");
    } finally {
      await sandbox.kill();
    }
  });
});

describe("E2B egress rules on a backend that cannot enforce them", () => {
  it("fail the create as E2B reports a failed create (500), leaving no sandbox", async () => {
    // Explicitly unisolated: the default backend is namespaced wherever bubblewrap works.
    const root = await mkdtemp(join(tmpdir(), "sandport-e2b-none-"));
    const runtime = new LocalRuntime({ root, isolation: "none", egressResolver: conformanceEgressResolver });
    const emulator = await startE2BEmulator({ backend: runtime });
    try {
      const failure = await Sandbox.create({
        ...emulator.sdkOptions,
        timeoutMs: 60_000,
        network: { allowOut: [allowed], denyOut: [e2b.ALL_TRAFFIC] },
      }).then(
        () => assert.fail("create must fail"),
        (error: unknown) => error as Error,
      );
      assert.ok(failure instanceof e2b.SandboxError, String(failure));
      assert.match(failure.message, /500.*sandbox could not be created: .*network allow lists/s);
      assert.deepEqual(emulator.liveSandboxes(), []);
    } finally {
      await emulator.stop();
      await destroyEverySandbox(runtime);
      await rm(root, { recursive: true, force: true });
    }
  });
});
