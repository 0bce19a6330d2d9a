// The Daytona emulator's egress rules: networkAllowList and domainAllowList
// are validated as the API validates them, reported on the sandbox, and
// enforced by the backend's allow list (a command inside reaches what they
// name, nothing else); a backend that cannot enforce them fails the create.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { LocalRuntime } from "@sandport/local";
import { destroyEverySandbox } from "../harness/backend.js";
import {
  CONFORMANCE_EGRESS_NAMES,
  conformanceEgressResolver,
  type EgressServers,
  egressSkipReason,
  fetchCommand,
  startEgressServers,
} from "../harness/egress.fixture.js";
import { emulatorFetch, openClient } from "./client.fixture.js";
import { startDaytonaEmulator } from "./emulator.js";
import { DAYTONA_SDKS } from "./sdk.fixture.js";

const NEWEST = DAYTONA_SDKS[0]!;
const { allowed, denied } = CONFORMANCE_EGRESS_NAMES;

describe("Daytona emulator: networkAllowList and domainAllowList", () => {
  it("are validated as the API does: IPv4 CIDR ranges and names, at most 10 of each", async () => {
    const emulator = await startDaytonaEmulator();
    try {
      const create = async (body: Record<string, unknown>) => {
        const response = await emulatorFetch(emulator, "/api/sandbox", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        });
        return { status: response.status, message: ((await response.json()) as { message: string }).message };
      };
      const ranges = (count: number) => Array.from({ length: count }, (_, index) => `10.0.${index}.0/24`).join(",");
      const names = (count: number) => Array.from({ length: count }, (_, index) => `h${index}.example.com`).join(",");
      for (const [body, message] of [
        [{ networkAllowList: "2001:db8::/32" }, /Invalid IP address: "2001:db8::" .*Must be a valid IPv4 address/],
        [{ networkAllowList: "10.0.0.0" }, /Missing CIDR prefix length/],
        [{ networkAllowList: "10.0.0.0/33" }, /Prefix must be between 0 and 32/],
        [{ networkAllowList: ranges(11) }, /cannot contain more than 10 networks/],
        [{ domainAllowList: "my_host.example.com" }, /Invalid domain: "my_host\.example\.com"/],
        [{ domainAllowList: "localhost" }, /Invalid domain/],
        [{ domainAllowList: "example.com:443" }, /Invalid domain/],
        [{ domainAllowList: names(11) }, /cannot contain more than 10 domains/],
        [{ domainAllowList: 7 }, /domainAllowList must be a string/],
      ] as const) {
        const answer = await create(body);
        assert.equal(answer.status, 400, JSON.stringify(body));
        assert.match(answer.message, message);
      }
      assert.deepEqual(emulator.liveSandboxes(), [], "nothing refused was created");
    } finally {
      await emulator.stop();
    }
  });

  it("on a backend that cannot enforce them leave the sandbox in state error, naming the allow list", async () => {
    // Explicitly unisolated: the default backend is namespaced wherever bubblewrap works.
    const root = await mkdtemp(join(tmpdir(), "sandport-daytona-egress-none-"));
    const runtime = new LocalRuntime({ root, isolation: "none" });
    const emulator = await startDaytonaEmulator({ backend: runtime });
    const daytona = openClient(NEWEST, emulator);
    try {
      const failure = await daytona.create({ networkAllowList: "127.0.0.1/32" }).then(
        () => assert.fail("create must fail"),
        (error: unknown) => error,
      );
      assert.ok(failure instanceof NEWEST.sdk.DaytonaError);
      assert.match((failure as Error).message, /error reason: .*allow list/);
      const [errored] = emulator.liveSandboxes();
      assert.equal(errored?.state, "error");
      const reported = (await (await emulatorFetch(emulator, `/api/sandbox/${errored?.id}`)).json()) as {
        networkAllowList?: string;
      };
      assert.equal(reported.networkAllowList, "127.0.0.1/32");
    } finally {
      await daytona[Symbol.asyncDispose]();
      await emulator.stop();
      await destroyEverySandbox(runtime);
      await rm(root, { recursive: true, force: true });
    }
  });

  describe("enforced by the default backend", async () => {
    const skip = await egressSkipReason();
    let servers: EgressServers;
    let emulator: Awaited<ReturnType<typeof startDaytonaEmulator>>;
    before(async () => {
      if (skip !== undefined) return;
      servers = await startEgressServers();
      emulator = await startDaytonaEmulator({ egressResolver: conformanceEgressResolver });
    });
    after(async () => {
      if (skip !== undefined) return;
      await emulator.stop();
      await servers.close();
    });

    it("a listed name and range are reached from inside, an unlisted name is not", { skip }, async () => {
      const daytona = openClient(NEWEST, emulator);
      try {
        const sandbox = await daytona.create({ domainAllowList: allowed, networkAllowList: "127.0.0.1/32" });
        assert.equal(sandbox.domainAllowList, allowed, "reported as sent");
        assert.equal(sandbox.networkAllowList, "127.0.0.1/32");
        const yes = await sandbox.process.executeCommand(fetchCommand(`http://${allowed}:${servers.allowedPort}/`));
        assert.deepEqual([yes.exitCode, yes.result], [0, "allowed"]);
        const no = await sandbox.process.executeCommand(fetchCommand(`http://${denied}:${servers.deniedPort}/`));
        assert.notEqual(no.exitCode, 0);
        assert.doesNotMatch(no.result, /^denied$/m);
      } finally {
        await daytona[Symbol.asyncDispose]();
      }
    });

    it("a range is its network address (the API accepts host bits): 127.0.0.1/31 reaches .1, not .2", {
      skip,
    }, async () => {
      const daytona = openClient(NEWEST, emulator);
      try {
        const sandbox = await daytona.create({ networkAllowList: "127.0.0.1/31" });
        const yes = await sandbox.process.executeCommand(fetchCommand(`http://127.0.0.1:${servers.allowedPort}/`));
        assert.deepEqual([yes.exitCode, yes.result], [0, "allowed"]);
        const no = await sandbox.process.executeCommand(fetchCommand(`http://127.0.0.2:${servers.deniedPort}/`));
        assert.notEqual(no.exitCode, 0);
        assert.doesNotMatch(no.result, /^denied$/m);
      } finally {
        await daytona[Symbol.asyncDispose]();
      }
    });
  });
});
