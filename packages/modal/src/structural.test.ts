// Unit tests through a tiny structural fake of the SDK's typed surface (the
// slice in internal/sdk-types.ts), for what the adapter decides by itself:
// ownership checks on what Modal reports, the lifetime and tags every create
// sends, the absent lifecycle methods, and deadlines on calls that never answer.
import assert from "node:assert/strict";
import { test } from "node:test";
import { LAUNCH_KEY_LABEL, OWNER_LABEL } from "@sandport/core";
import { expectCode } from "@sandport/testkit/assertions";
import type {
  ModalClient,
  ModalClientParams,
  ModalCreateParams,
  ModalSandbox,
  ModalSdkModule,
} from "./internal/sdk-types.js";
import { ModalRuntime } from "./modal-runtime.js";

const OWNER = "structural";
const ID = (n: number) => `sb-01ARZ3NDEKTSV4RRFFQ69G5F${String(n).padStart(2, "0")}`;

/** What the fake records, and how it answers. */
interface FakeWorld {
  readonly creates: ModalCreateParams[];
  /** Tags of every sandbox the fake knows, by id. */
  readonly tags: Map<string, Record<string, string>>;
  /** Ids `sandboxes.list` yields, whatever the filter (the server's filter is not trusted). */
  listed: string[];
  /** When set, `sandboxes.create` and `exec` never answer. */
  hang: boolean;
}

const never = () => new Promise<never>(() => {});

function fakeSandbox(world: FakeWorld, sandboxId: string): ModalSandbox {
  return {
    sandboxId,
    filesystem: {} as ModalSandbox["filesystem"],
    exec: () => (world.hang ? never() : Promise.reject(new Error("exec is not faked"))),
    getTags: async () => ({ ...(world.tags.get(sandboxId) ?? {}) }),
    poll: async () => {
      if (!world.tags.has(sandboxId)) throw Object.assign(new Error("not found"), { name: "ClientError", code: 5 });
      return null;
    },
    terminate: async () => void world.tags.delete(sandboxId),
    tunnels: async () => ({}),
    detach() {},
  };
}

/** A structural SDK whose client takes its profile from the pinned environment, as the real one does. */
function fakeSdk(world: FakeWorld): ModalSdkModule {
  class FakeClient implements ModalClient {
    readonly profile: ModalClient["profile"];
    readonly apps = { fromName: async () => ({ appId: "ap-1" }) };
    readonly images = {
      fromRegistry: () => ({ imageId: "", build: async () => ({ imageId: "im-1", build: never }) }),
      fromId: never,
    };
    readonly sandboxes = {
      create: async (_app: unknown, _image: unknown, params: ModalCreateParams) => {
        world.creates.push(params);
        if (world.hang) return never();
        const id = ID(world.tags.size + 50);
        world.tags.set(id, { ...params.tags });
        return fakeSandbox(world, id);
      },
      fromId: async (id: string) => fakeSandbox(world, id),
      list: async function* () {
        for (const id of world.listed) yield fakeSandbox(world, id);
      },
    };
    constructor(params: ModalClientParams) {
      this.profile = {
        serverUrl: process.env.MODAL_SERVER_URL ?? "https://api.modal.com:443",
        sandboxV2: process.env.MODAL_SANDBOX_V2 === "true",
        tokenId: params.tokenId,
        tokenSecret: params.tokenSecret,
        environment: params.environment,
      };
    }
  }
  return { ModalClient: FakeClient };
}

function setup(more: { maxLifetimeMs?: number } = {}) {
  const world: FakeWorld = { creates: [], tags: new Map(), listed: [], hang: false };
  const runtime = new ModalRuntime({
    tokenId: "ak-1",
    tokenSecret: "as-1",
    serverUrl: "http://127.0.0.1:9",
    maxLifetimeMs: more.maxLifetimeMs ?? 120_000,
    owner: OWNER,
    sdk: fakeSdk(world),
  });
  return { world, runtime };
}

test("every create sends the lifetime (maxLifetimeMs, or the spec's in whole seconds) and the ownership tags", async () => {
  const { world, runtime } = setup({ maxLifetimeMs: 7_000 });
  await runtime.launch({ labels: { job: "1" }, launchKey: "k-1" });
  await runtime.launch({ lifetimeMs: 4_999 });
  assert.deepEqual(
    world.creates.map((params) => params.timeoutMs),
    [7_000, 4_000],
  );
  assert.deepEqual(world.creates[0]?.tags, { job: "1", [OWNER_LABEL]: OWNER, [LAUNCH_KEY_LABEL]: "k-1" });
  assert.equal(world.creates[0]?.blockNetwork, false, "blockNetwork is always sent");
  assert.equal(world.creates[0]?.workdir, "/workspace");
});

test("ownership: a sandbox without our tag is foreign on every method; list results are checked again", async () => {
  const { world, runtime } = setup();
  const ours = await runtime.launch({ labels: { pool: "a" } });
  world.tags.set(ID(1), { pool: "a" });
  world.tags.set(ID(2), { pool: "a", [OWNER_LABEL]: "someone-else" });
  world.listed = [ours.id, ID(1), ID(2)];
  assert.deepEqual(
    (await runtime.findByLabels({ pool: "a" })).map((handle) => handle.id),
    [ours.id],
    "the fake's server ignored the tag filter; the adapter did not",
  );
  for (const id of [ID(1), ID(2)]) {
    const forged = { id, provider: "modal" as const, labels: {} };
    await expectCode(runtime.getById(id), "FOREIGN_SANDBOX");
    await expectCode(runtime.destroy(forged), "FOREIGN_SANDBOX");
    await expectCode(runtime.exec(forged, { argv: ["true"] }), "FOREIGN_SANDBOX");
    await expectCode(runtime.readFile(forged, "a"), "FOREIGN_SANDBOX");
    assert.ok(world.tags.has(id), "never terminated");
  }
  assert.equal(await runtime.getById(ID(3)), undefined, "an unknown sandbox is absent");
});

test("Modal has no stop/start, async exec or snapshots: the methods are absent, not no-ops", () => {
  const { runtime } = setup();
  const methods = runtime as unknown as Record<string, unknown>;
  for (const name of [
    "stop",
    "start",
    "startCommand",
    "commandStatus",
    "commandLogs",
    "launchDetached",
    "snapshot",
    "listSnapshots",
    "deleteSnapshot",
  ]) {
    assert.equal(name in methods, false, name);
  }
  assert.equal(runtime.capabilities.lifecycle, "unsupported");
  assert.equal(runtime.capabilities.absent?.snapshots, "not-exposed", "declared, with the reason in capabilities.ts");
});

test("deadlines: a create or exec start that never answers rejects DEADLINE_EXCEEDED on time", async () => {
  const { world, runtime } = setup();
  const handle = await runtime.launch();
  world.hang = true;
  let started = performance.now();
  await expectCode(runtime.launch({}, { timeoutMs: 150 }), "DEADLINE_EXCEEDED");
  assert.ok(performance.now() - started < 500);
  started = performance.now();
  await expectCode(runtime.exec(handle, { argv: ["true"] }, { timeoutMs: 150 }), "DEADLINE_EXCEEDED");
  await expectCode(runtime.spawn(handle, { argv: ["true"] }, { timeoutMs: 150 }), "DEADLINE_EXCEEDED");
  assert.ok(performance.now() - started < 1_000);
  const defaults = new ModalRuntime({
    tokenId: "ak-1",
    tokenSecret: "as-1",
    maxLifetimeMs: 60_000,
    owner: OWNER,
    runBudgetMs: 100,
    timeouts: { execGraceMs: 100 },
    sdk: fakeSdk(world),
  });
  started = performance.now();
  await expectCode(defaults.exec(handle, { argv: ["true"] }), "DEADLINE_EXCEEDED");
  assert.ok(performance.now() - started < 1_000, "without timeoutMs: the run budget plus execGraceMs");
});
