// The Freestyle emulator's outbound firewall rules through the real SDK: a
// rule from the VM to a range is validated, kept on the VM and enforced by the
// backend's allow list (a command inside reaches the range, nothing else); a
// backend that cannot enforce it fails the create.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { LocalRuntime } from "@sandport/local";
import { Freestyle } from "freestyle";
import { destroyEverySandbox } from "../harness/backend.js";
import {
  conformanceEgressResolver,
  type EgressServers,
  egressSkipReason,
  fetchCommand,
  startEgressServers,
} from "../harness/egress.fixture.js";
import { type FreestyleEmulator, startFreestyleEmulator } from "./emulator.js";

/** A create body whose firewall lets the VM reach `cidr` (and, for a port, only that port). */
const toRange = (cidr: string, narrowing: Record<string, unknown> = {}) => ({
  firewall: { rules: [{ action: "allow", source: {}, destination: { cidr, ...narrowing } }] },
});

describe("Freestyle emulator: outbound firewall rules to ranges", () => {
  it("a range must be canonical; one narrowed to a port is not emulated; nothing refused is created", async () => {
    const emulator = await startFreestyleEmulator();
    try {
      const send = async (body: unknown) => {
        const response = await fetch(`${emulator.baseUrl}/v5/vms`, {
          method: "POST",
          headers: { authorization: `Bearer ${emulator.apiKey}`, "content-type": "application/json" },
          body: JSON.stringify(body),
        });
        return { status: response.status, body: (await response.json()) as { code?: string; message?: string } };
      };
      for (const cidr of ["10.0.0.1/8", "10.0.0.0", "2001:db8::1/32", "not-a-range/8"]) {
        const answer = await send(toRange(cidr));
        assert.equal(answer.status, 400, cidr);
        assert.match(answer.body.message ?? "", /destination\.cidr/);
      }
      const narrowed = await send(toRange("10.0.0.0/8", { port: 443, protocol: "tcp" }));
      assert.equal(narrowed.body.code, "NOT_EMULATED");
      assert.deepEqual(emulator.liveSandboxes(), []);
    } finally {
      await emulator.stop();
    }
  });

  it("on a backend that cannot enforce them, the create fails with the backend's reason", async () => {
    const root = await mkdtemp(join(tmpdir(), "sandport-freestyle-egress-none-"));
    const runtime = new LocalRuntime({ root, isolation: "none" });
    const emulator = await startFreestyleEmulator({ backend: runtime });
    try {
      const freestyle = new Freestyle(emulator.sdkOptions);
      await assert.rejects(freestyle.vms.create(toRange("127.0.0.1/32") as never), (error: Error) => {
        assert.match(error.message, /allow list/);
        return true;
      });
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
    let emulator: FreestyleEmulator;
    before(async () => {
      if (skip !== undefined) return;
      servers = await startEgressServers();
      emulator = await startFreestyleEmulator({ egressResolver: conformanceEgressResolver });
    });
    after(async () => {
      if (skip !== undefined) return;
      await emulator.stop();
      await servers.close();
    });

    it("the range is reached from inside, an address outside it is not; the rule is reported", { skip }, async () => {
      const freestyle = new Freestyle(emulator.sdkOptions);
      const { vm, firewallRules } = await freestyle.vms.create(toRange("127.0.0.1/32") as never);
      try {
        const yes = await vm.exec(fetchCommand(`http://127.0.0.1:${servers.allowedPort}/`));
        assert.deepEqual([yes.statusCode, yes.stdout], [0, "allowed"]);
        const no = await vm.exec(fetchCommand(`http://127.0.0.2:${servers.deniedPort}/`));
        assert.notEqual(no.statusCode, 0);
        assert.notEqual(no.stdout, "denied");
        assert.deepEqual(
          firewallRules.map((rule) => rule.destination),
          [{ cidr: "127.0.0.1/32" }],
          "the create answers the rule it declared",
        );
      } finally {
        await vm.delete();
      }
    });
  });
});
