// Vercel's user-defined networkPolicy through the real @vercel/sandbox SDK: validated, reported as Vercel
// reports it, and enforced from inside by the backend; a backend that cannot enforce it fails the create.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { LocalRuntime } from "@sandport/local";
import { APIError, Sandbox } from "@vercel/sandbox";
import { destroyEverySandbox } from "../harness/backend.js";
import {
  CONFORMANCE_EGRESS_NAMES,
  conformanceEgressResolver,
  type EgressServers,
  fetchCommand,
  startEgressServers,
} from "../harness/egress.fixture.js";
import { sharedNamespacesSkipReason } from "../harness/isolation.fixture.js";
import { startVercelEmulator, type VercelEmulator } from "./emulator.js";
import { backendPolicy, readNetworkPolicy } from "./network-policy.js";

type CreateParams = NonNullable<Parameters<typeof Sandbox.create>[0]>;

const { allowed, denied } = CONFORMANCE_EGRESS_NAMES;
// The default backend of this emulator is namespaced only with one namespace set per sandbox (as root),
// and only a namespaced backend enforces an allow list. Awaited before any suite is declared: a suite
// declared after an await is not run under --test-force-exit.
const shared = await sharedNamespacesSkipReason();
const unenforced =
  shared === undefined ? undefined : `an allow list needs bubblewrap as the emulator uses it: ${shared}`;

/** Runs `command` in `sandbox`: its stdout, or `failed` when it exits non-zero. */
async function outcome(sandbox: Sandbox, command: string): Promise<string> {
  const finished = await sandbox.runCommand({ cmd: "sh", args: ["-c", command] });
  return finished.exitCode === 0 ? await finished.stdout() : "failed";
}

describe("Vercel network policies become the backend's port policy", () => {
  it("the SDK's and the REST reference's forms are read, reported in Vercel's custom form, and enforced as an allow list", () => {
    const read = (value: unknown) => {
      const result = readNetworkPolicy(value);
      assert.ok("policy" in result, JSON.stringify(result));
      return result.policy;
    };
    assert.deepEqual(read(undefined), { mode: "allow-all" });
    assert.deepEqual(read({ mode: "deny-all" }), { mode: "deny-all" });
    const custom = { mode: "custom", allowedDomains: ["example.com", "*.npmjs.org"], allowedCIDRs: ["10.0.0.0/8"] };
    assert.deepEqual(read({ allow: ["example.com", "*.npmjs.org"], subnets: { allow: ["10.0.0.0/8"] } }), custom);
    assert.deepEqual(
      read({ allow: { "example.com": [], "*.npmjs.org": [] }, subnets: { allow: ["10.0.0.0/8"] } }),
      custom,
    );
    assert.deepEqual(read(custom), custom);
    assert.deepEqual(backendPolicy(read(custom)), { allow: ["example.com", "*.npmjs.org", "10.0.0.0/8"] });
    assert.equal(backendPolicy(read({ allow: [] })), "none");
    assert.equal(backendPolicy(read({ mode: "allow-all" })), "all");
  });

  it("bad entries and what the backend cannot enforce are refused, saying which", () => {
    const refused = (value: unknown) => {
      const result = readNetworkPolicy(value);
      assert.ok("refused" in result, JSON.stringify(result));
      return result.refused;
    };
    assert.match(refused({ allow: ["not a domain"] }), /networkPolicy.allow: "not a domain" is not a domain/);
    assert.match(refused({ subnets: { allow: ["10.0.0.1"] } }), /subnets.allow: "10.0.0.1" is not a CIDR range/);
    assert.match(refused({ allow: ["*"] }), /catch-all/);
    assert.match(refused({ subnets: { deny: ["10.0.0.0/8"] } }), /denied ranges are not emulated/);
    assert.match(refused({ mode: "some" }), /mode must be/);
  });
});

describe("Vercel network policies are enforced from inside an emulated sandbox", { skip: unenforced }, () => {
  let servers: EgressServers;
  let emulator: VercelEmulator;
  before(async () => {
    servers = await startEgressServers();
    emulator = await startVercelEmulator({ egressResolver: conformanceEgressResolver });
  });
  after(async () => {
    await emulator?.stop();
    await servers?.close();
  });
  const create = (networkPolicy: CreateParams["networkPolicy"]) =>
    Sandbox.create({ ...emulator.sdkOptions, timeout: 60_000, networkPolicy } as CreateParams);

  it("an allowed name is reached and a denied one is not; the sandbox reports the policy", async () => {
    const sandbox = await create({ allow: [allowed], subnets: { allow: ["127.0.0.1/32"] } });
    try {
      assert.equal(await outcome(sandbox, fetchCommand(`http://${allowed}:${servers.allowedPort}/`)), "allowed");
      assert.equal(await outcome(sandbox, fetchCommand(`http://${denied}:${servers.deniedPort}/`)), "failed");
      assert.equal(await outcome(sandbox, fetchCommand(`http://127.0.0.2:${servers.deniedPort}/`)), "failed");
      const fetched = await Sandbox.get({ ...emulator.sdkOptions, name: sandbox.name });
      assert.deepEqual(fetched.networkPolicy, { allow: [allowed], subnets: { allow: ["127.0.0.1/32"] } });
    } finally {
      await sandbox.delete();
    }
  });

  it("deny-all reaches neither the name nor the address", async () => {
    const sandbox = await create("deny-all");
    try {
      assert.equal(await outcome(sandbox, fetchCommand(`http://${allowed}:${servers.allowedPort}/`)), "failed");
      assert.equal(await outcome(sandbox, fetchCommand(`http://127.0.0.1:${servers.allowedPort}/`)), "failed");
    } finally {
      await sandbox.delete();
    }
  });
});

describe("Vercel network policies on a backend that cannot enforce them", () => {
  it("fail the create with the backend's reason (400), leaving no sandbox", async () => {
    // Explicitly unisolated: the default backend is namespaced wherever bubblewrap works.
    const root = await mkdtemp(join(tmpdir(), "sandport-vercel-none-"));
    const runtime = new LocalRuntime({ root, isolation: "none", egressResolver: conformanceEgressResolver });
    const emulator = await startVercelEmulator({ backend: runtime });
    try {
      const failure = await Sandbox.create({
        ...emulator.sdkOptions,
        timeout: 60_000,
        networkPolicy: { allow: [allowed] },
      } as CreateParams).then(
        () => assert.fail("create must fail"),
        (error: unknown) => error,
      );
      assert.ok(failure instanceof APIError, String(failure));
      assert.equal(failure.response.status, 400);
      assert.match(failure.message, /sandbox could not be created: .*network allow lists/);
      assert.deepEqual(emulator.liveSandboxes(), []);
    } finally {
      await emulator.stop();
      await destroyEverySandbox(runtime);
      await rm(root, { recursive: true, force: true });
    }
  });
});
