// The Modal emulator's outbound network rules through the real SDK: an
// outbound allowlist (outboundCidrAllowlist, outboundDomainAllowlist) is
// validated, kept on the sandbox and enforced by the backend's allow list; a
// backend that cannot enforce it fails the create.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { LocalRuntime } from "@sandport/local";
import { destroyEverySandbox } from "../harness/backend.js";
import {
  conformanceEgressResolver,
  type EgressServers,
  egressSkipReason,
  fetchCommand,
  startEgressServers,
} from "../harness/egress.fixture.js";
import { type ModalEmulator, startModalEmulator } from "./emulator.js";
import { backendNetwork, readNetworkAccess } from "./network-access.js";
import { clientFor, loadModal, type ModalClient } from "./sdk.fixture.js";

type Sandbox = Awaited<ReturnType<ModalClient["sandboxes"]["create"]>>;

/** Runs `command` in the sandbox; its exit code and stdout. */
async function run(sandbox: Sandbox, command: string): Promise<{ exitCode: number; stdout: string }> {
  const process = await sandbox.exec(["sh", "-c", command]);
  const stdout = await process.stdout.readText();
  return { exitCode: await process.wait(), stdout };
}

async function clientOf(emulator: ModalEmulator) {
  const { client } = clientFor(await loadModal(), emulator);
  const app = await client.apps.fromName("egress", { createIfMissing: true });
  return { client, app, image: client.images.fromRegistry("alpine:3.21") };
}

describe("Modal emulator: outbound allowlists", () => {
  it("become the backend's allow list: ranges on every port, names on 443 only (Modal admits TLS to 443 for a name)", () => {
    const network = readNetworkAccess({
      networkAccessType: "ALLOWLIST",
      allowedCidrs: ["10.0.0.0/8"],
      allowedDomains: ["api.example.com", "*.example.org"],
    });
    assert.deepEqual(backendNetwork(network), { allow: ["10.0.0.0/8", "api.example.com:443", "*.example.org:443"] });
    assert.deepEqual(backendNetwork(readNetworkAccess({ networkAccessType: "ALLOWLIST" })), { allow: [] });
    assert.equal(backendNetwork(readNetworkAccess({ networkAccessType: "BLOCKED" })), "none");
    assert.equal(backendNetwork(readNetworkAccess(undefined)), undefined, "open: the backend's default");
  });

  it("a malformed CIDR or domain is INVALID_ARGUMENT, and nothing is created", async () => {
    const emulator = await startModalEmulator();
    try {
      const { client, app, image } = await clientOf(emulator);
      for (const params of [
        { outboundCidrAllowlist: ["10.0.0.0"] },
        { outboundCidrAllowlist: ["not-a-range/8"] },
        { outboundDomainAllowlist: ["api.example.com:443"] },
        { outboundDomainAllowlist: ["bad domain"] },
      ]) {
        await assert.rejects(client.sandboxes.create(app, image, params), (error) => {
          assert.equal((error as { code?: number }).code, 3, JSON.stringify(params));
          assert.match((error as Error).message, /invalid (CIDR|domain)/);
          return true;
        });
      }
      assert.deepEqual(emulator.liveSandboxes(), []);
    } finally {
      await emulator.stop();
    }
  });

  it("on a backend that cannot enforce one, the create fails with the backend's reason", async () => {
    const root = await mkdtemp(join(tmpdir(), "sandport-modal-egress-none-"));
    const runtime = new LocalRuntime({ root, isolation: "none" });
    const emulator = await startModalEmulator({ backend: runtime });
    try {
      const { client, app, image } = await clientOf(emulator);
      await assert.rejects(
        client.sandboxes.create(app, image, { outboundCidrAllowlist: ["127.0.0.1/32"] }),
        (error) => {
          assert.equal((error as { code?: number }).code, 12);
          assert.match((error as Error).message, /allow list/);
          return true;
        },
      );
      assert.deepEqual(emulator.liveSandboxes(), []);
    } finally {
      await emulator.stop();
      await destroyEverySandbox(runtime);
      await rm(root, { recursive: true, force: true });
    }
  });

  describe("enforced by the default backend", async () => {
    const skip = await egressSkipReason();
    let servers: EgressServers;
    let emulator: ModalEmulator;
    before(async () => {
      if (skip !== undefined) return;
      servers = await startEgressServers();
      emulator = await startModalEmulator({ egressResolver: conformanceEgressResolver });
    });
    after(async () => {
      if (skip !== undefined) return;
      await emulator.stop();
      await servers.close();
    });

    it("a listed range is reached from inside, an unlisted address is not", { skip }, async () => {
      const { client, app, image } = await clientOf(emulator);
      const sandbox = await client.sandboxes.create(app, image, { outboundCidrAllowlist: ["127.0.0.1/32"] });
      try {
        assert.deepEqual(await run(sandbox, fetchCommand(`http://127.0.0.1:${servers.allowedPort}/`)), {
          exitCode: 0,
          stdout: "allowed",
        });
        const denied = await run(sandbox, fetchCommand(`http://127.0.0.2:${servers.deniedPort}/`));
        assert.notEqual(denied.exitCode, 0);
        assert.notEqual(denied.stdout, "denied");
      } finally {
        await sandbox.terminate();
      }
    });
  });
});
