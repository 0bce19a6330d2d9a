// start and recreate in every branch, against a structural fake of the SDK's
// surface (the emulator cannot make a started sandbox fail a probe on purpose
// without also failing its replacement; faults.wire.test.ts covers one case
// through the real SDK): start proves a sandbox and never changes its
// identity (a failed probe rejects, naming recreate, and creates nothing); a
// failed re-read propagates and replaces nothing; recreate replaces a sandbox
// that fails by a proven one launched the same way before the old one is
// deleted, and resolves the new handle, leaving the caller's as it was.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { OWNER_LABEL } from "@sandport/core";
import { expectCode } from "@sandport/testkit/assertions";
import { DaytonaRuntime } from "./daytona-runtime.js";
import type { DaytonaHandle } from "./handle.js";
import type { DaytonaCreateBody, DaytonaSandboxRecord, DaytonaSdkModule } from "./internal/sdk-types.js";

/** An error shaped like the SDK's: a class name and, for answers, the HTTP status. */
function sdkError(name: string, statusCode?: number): Error {
  return Object.assign(new Error(`${name} from the fake`), { name, ...(statusCode ? { statusCode } : {}) });
}

/** A fake Daytona: sandboxes as API records, and which of them answer the readiness probe. */
class World {
  readonly records = new Map<string, DaytonaSandboxRecord>();
  readonly calls: string[] = [];
  /** Sandboxes whose commands fail (their daemon is broken). */
  readonly broken = new Set<string>();
  /** Thrown by the next `getSandbox`. */
  readError: Error | undefined;
  #next = 0;

  add(record: Partial<DaytonaSandboxRecord>): DaytonaSandboxRecord {
    const full: DaytonaSandboxRecord = { id: `sbx-${++this.#next}`, state: "started", ...record };
    this.records.set(full.id, full);
    return full;
  }

  sdk(): DaytonaSdkModule {
    const world = this;
    const sandboxOf = (id: string) => {
      const record = world.records.get(id);
      if (!record) throw sdkError("DaytonaNotFoundError", 404);
      return {
        id,
        labels: { ...record.labels },
        state: record.state,
        process: {
          executeCommand: async () => {
            world.calls.push(`probe ${id}`);
            if (world.broken.has(id)) throw sdkError("DaytonaBadGatewayError", 502);
            return { exitCode: 0, result: "sandport-ready\n" };
          },
        },
        fs: {
          createFolder: async () => {
            world.calls.push(`createFolder ${id}`);
          },
        },
        start: async () => {
          world.calls.push(`start ${id}`);
          world.records.set(id, { ...record, state: "started" });
        },
        waitUntilStarted: async () => {},
        waitUntilStopped: async () => {},
      };
    };
    class Daytona {
      readonly sandboxApi = {
        getSandbox: async (id: string) => {
          world.calls.push(`get ${id}`);
          if (world.readError) throw world.readError;
          const record = world.records.get(id);
          if (!record) throw sdkError("DaytonaNotFoundError", 404);
          return { data: record };
        },
        createSandbox: async (body: DaytonaCreateBody) => {
          const created = world.add({ ...body, state: "started" } as Partial<DaytonaSandboxRecord>);
          world.calls.push(`create ${created.id}`);
          return { data: created };
        },
        deleteSandbox: async (id: string) => {
          world.calls.push(`delete ${id}`);
          world.records.delete(id);
          return {};
        },
        listSandboxes: async () => ({ data: { items: [...world.records.values()], nextCursor: null } }),
      };
      async get(id: string) {
        return sandboxOf(id);
      }
    }
    return {
      Daytona,
      Image: { base: (image: string) => ({ dockerfile: `FROM ${image}` }) },
    } as unknown as DaytonaSdkModule;
  }
}

/** How the sandboxes below were launched: everything a replacement must copy. */
const LAUNCHED_AS = {
  snapshot: "my-snapshot",
  labels: { job: "42", [OWNER_LABEL]: "recovery", "sandport.launch-key": "key-1", "code-toolbox-language": "python" },
  env: { A: "1" },
  target: "eu",
  user: "daytona",
  public: false,
  autoStopInterval: 30,
  autoArchiveInterval: 60,
  autoDeleteInterval: 120,
  networkBlockAll: false,
  networkAllowList: "203.0.113.0/24",
  domainAllowList: "api.example.com,*.example.org",
  volumes: [{ volumeId: "vol-1", mountPath: "/data", subpath: "team" }],
};

/** A stopped sandbox of ours, launched as {@link LAUNCHED_AS}. */
function stoppedSandbox(world: World): DaytonaSandboxRecord {
  return world.add({ state: "stopped", ...structuredClone(LAUNCHED_AS) });
}

function runtimeOn(world: World): DaytonaRuntime {
  return new DaytonaRuntime({ apiKey: "fake", owner: "recovery", sdk: world.sdk() });
}

/** A frozen handle: neither call may write to it. */
function handleOf(id: string): DaytonaHandle {
  return Object.freeze({ id, provider: "daytona", labels: Object.freeze({ job: "42" }) });
}

describe("start: proven, never replaced", () => {
  test("a healthy sandbox is started, proven by the probe, and keeps its id", async () => {
    const world = new World();
    const old = stoppedSandbox(world);
    await runtimeOn(world).start(handleOf(old.id));
    assert.deepEqual(world.calls, [`get ${old.id}`, `start ${old.id}`, `probe ${old.id}`]);
  });

  test("a failed re-read propagates as it is (auth, rate limit, network) from start and recreate, and replaces nothing", async () => {
    for (const [error, code] of [
      [sdkError("DaytonaAuthenticationError", 401), "AUTH"],
      [sdkError("DaytonaRateLimitError", 429), "RATE_LIMITED"],
      [sdkError("DaytonaConnectionError"), "PROVIDER_UNAVAILABLE"],
    ] as const) {
      for (const call of ["start", "recreate"] as const) {
        const world = new World();
        const old = stoppedSandbox(world);
        world.broken.add(old.id);
        world.readError = error;
        const failure = await expectCode(runtimeOn(world)[call](handleOf(old.id)), code);
        assert.equal(failure.cause, error, "the SDK's error is the cause");
        assert.deepEqual(world.calls, [`get ${old.id}`], "nothing started, created or deleted");
      }
    }
  });

  test("an unhealthy sandbox: start rejects PROVIDER_UNAVAILABLE naming recreate, keeps the id and creates nothing", async () => {
    const world = new World();
    const old = stoppedSandbox(world);
    world.broken.add(old.id);
    const handle = { id: old.id, provider: "daytona", labels: {} } as DaytonaHandle;
    const error = await expectCode(runtimeOn(world).start(handle), "PROVIDER_UNAVAILABLE");
    assert.match(error.message, /did not become ready after start: .*readiness probe.*recreate\(handle\)/);
    assert.equal(handle.id, old.id);
    assert.deepEqual([...world.records.keys()], [old.id]);
    assert.ok(!world.calls.some((call) => call.startsWith("create") || call.startsWith("delete")));
  });

  test("a sandbox that is not ours is FOREIGN_SANDBOX; an absent one NOT_FOUND; neither call replaces anything", async () => {
    const world = new World();
    const foreign = world.add({ labels: { [OWNER_LABEL]: "someone-else" } });
    const runtime = runtimeOn(world);
    for (const call of ["start", "recreate"] as const) {
      await expectCode(runtime[call](handleOf(foreign.id)), "FOREIGN_SANDBOX");
      await expectCode(runtime[call](handleOf("sbx-missing")), "NOT_FOUND");
    }
    assert.ok(!world.calls.some((call) => /^(create|delete|start)/.test(call)));
  });
});

describe("recreate: an explicit replacement", () => {
  test("a failed probe: a replacement launched the same way is proven, then the old one deleted; the new handle resolves", async () => {
    const world = new World();
    const old = stoppedSandbox(world);
    world.broken.add(old.id);
    const handle = handleOf(old.id);
    const runtime = runtimeOn(world);
    const renewed = await runtime.recreate(handle);
    assert.equal(handle.id, old.id, "the caller's handle is left as it was");
    assert.notEqual(renewed.id, old.id);
    assert.deepEqual(renewed.labels, { job: "42" });
    const replacement = world.records.get(renewed.id);
    assert.ok(replacement, "the replacement exists");
    assert.equal(world.records.has(old.id), false, "the old sandbox is deleted");
    const { id: _id, state: _state, ...copied } = replacement;
    assert.deepEqual(copied, LAUNCHED_AS);
    const order = world.calls.filter((call) => !call.startsWith("get "));
    assert.deepEqual(order, [
      `start ${old.id}`,
      ...Array(3).fill(`probe ${old.id}`),
      `create ${renewed.id}`,
      `createFolder ${renewed.id}`,
      `probe ${renewed.id}`,
      `delete ${old.id}`,
    ]);
    assert.deepEqual(await runtime.settle(), []);
    assert.equal((await runtime.getById(renewed.id))?.id, renewed.id, "the new id reattaches");
    assert.equal((await runtime.exec(renewed, { argv: ["true"] })).exitCode, 0, "the new sandbox runs commands");
  });

  test("a healthy sandbox is kept: its own handle resolves and nothing is created", async () => {
    const world = new World();
    const old = stoppedSandbox(world);
    const renewed = await runtimeOn(world).recreate(handleOf(old.id));
    assert.equal(renewed.id, old.id);
    assert.ok(!world.calls.some((call) => call.startsWith("create") || call.startsWith("delete")));
  });

  test("a replacement that fails its own probe is deleted and the old sandbox kept", async () => {
    const world = new World();
    const old = stoppedSandbox(world);
    world.broken.add(old.id);
    world.broken.add("sbx-2");
    await expectCode(runtimeOn(world).recreate(handleOf(old.id)), "PROVIDER_UNAVAILABLE");
    assert.deepEqual([...world.records.keys()], [old.id], "only the old sandbox is left");
    assert.ok(world.calls.includes("delete sbx-2"));
  });

  test("a sandbox in state error is replaced without a start", async () => {
    const world = new World();
    const errored = world.add({ ...stoppedSandbox(world), id: "sbx-errored", state: "error" });
    const renewed = await runtimeOn(world).recreate(handleOf(errored.id));
    assert.notEqual(renewed.id, errored.id);
    assert.ok(!world.calls.includes(`start ${errored.id}`), "a sandbox in state error is not started");
  });
});
