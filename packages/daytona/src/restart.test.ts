// Restart recovery in every branch, against a structural fake of the SDK's
// surface (the emulator cannot make a started sandbox fail a probe on purpose
// without also failing its replacement; faults.wire.test.ts covers one case
// through the real SDK): a healthy start keeps the id; a failed re-read
// propagates and replaces nothing; a failed probe is replaced by a proven
// sandbox launched the same way before the old one is deleted; with
// recreateOnFailedStart false a failed probe is an error and nothing is created.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { OWNER_LABEL } from "@sandport/core";
import { expectCode } from "@sandport/testkit/assertions";
import { DaytonaRuntime } from "./daytona-runtime.js";
import type { DaytonaHandle } from "./handle.js";
import type { DaytonaCreateBody, DaytonaSandboxRecord, DaytonaSdkModule } from "./internal/sdk-types.js";
import type { DaytonaRuntimeOptions } from "./options.js";

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
  networkBlockAll: true,
  volumes: [{ volumeId: "vol-1", mountPath: "/data", subpath: "team" }],
};

/** A stopped sandbox of ours, launched as {@link LAUNCHED_AS}. */
function stoppedSandbox(world: World): DaytonaSandboxRecord {
  return world.add({ state: "stopped", ...structuredClone(LAUNCHED_AS) });
}

function runtimeOn(world: World, options: Partial<DaytonaRuntimeOptions> = {}): DaytonaRuntime {
  return new DaytonaRuntime({ apiKey: "fake", owner: "recovery", sdk: world.sdk(), ...options });
}

function handleOf(id: string): DaytonaHandle {
  return { id, provider: "daytona", labels: { job: "42" } };
}

describe("start: restart recovery", () => {
  test("a healthy sandbox is started, proven by the probe, and keeps its id", async () => {
    const world = new World();
    const old = stoppedSandbox(world);
    const handle = handleOf(old.id);
    await runtimeOn(world).start(handle);
    assert.equal(handle.id, old.id);
    assert.deepEqual(world.calls, [`get ${old.id}`, `start ${old.id}`, `probe ${old.id}`]);
  });

  test("a failed re-read propagates as it is (auth, rate limit, network) and replaces nothing", async () => {
    for (const [error, code] of [
      [sdkError("DaytonaAuthenticationError", 401), "AUTH"],
      [sdkError("DaytonaRateLimitError", 429), "RATE_LIMITED"],
      [sdkError("DaytonaConnectionError"), "PROVIDER_UNAVAILABLE"],
    ] as const) {
      const world = new World();
      const old = stoppedSandbox(world);
      world.broken.add(old.id);
      world.readError = error;
      const handle = handleOf(old.id);
      const failure = await expectCode(runtimeOn(world).start(handle), code);
      assert.equal(failure.cause, error, "the SDK's error is the cause");
      assert.equal(handle.id, old.id);
      assert.deepEqual(world.calls, [`get ${old.id}`], "nothing started, created or deleted");
    }
  });

  test("a failed probe: a replacement launched the same way is proven, then the old one deleted; the handle takes the new id", async () => {
    const world = new World();
    const old = stoppedSandbox(world);
    world.broken.add(old.id);
    const handle = handleOf(old.id);
    const runtime = runtimeOn(world);
    await runtime.start(handle);
    assert.notEqual(handle.id, old.id);
    const replacement = world.records.get(handle.id);
    assert.ok(replacement, "the replacement exists");
    assert.equal(world.records.has(old.id), false, "the old sandbox is deleted");
    const { id: _id, state: _state, ...copied } = replacement;
    assert.deepEqual(copied, LAUNCHED_AS);
    const order = world.calls.filter((call) => !call.startsWith("get "));
    assert.deepEqual(order, [
      `start ${old.id}`,
      ...Array(3).fill(`probe ${old.id}`),
      `create ${handle.id}`,
      `createFolder ${handle.id}`,
      `probe ${handle.id}`,
      `delete ${old.id}`,
    ]);
    assert.deepEqual(await runtime.settle(), []);
    assert.equal((await runtime.getById(handle.id))?.id, handle.id, "the new id reattaches");
  });

  test("a replacement that fails its own probe is deleted, the old sandbox kept and the handle unchanged", async () => {
    const world = new World();
    const old = stoppedSandbox(world);
    world.broken.add(old.id);
    world.broken.add("sbx-2");
    const handle = handleOf(old.id);
    await expectCode(runtimeOn(world).start(handle), "PROVIDER_UNAVAILABLE");
    assert.equal(handle.id, old.id);
    assert.deepEqual([...world.records.keys()], [old.id], "only the old sandbox is left");
    assert.ok(world.calls.includes("delete sbx-2"));
  });

  test("recreateOnFailedStart: false: a failed probe is PROVIDER_UNAVAILABLE and nothing is created", async () => {
    const world = new World();
    const old = stoppedSandbox(world);
    world.broken.add(old.id);
    const handle = handleOf(old.id);
    const error = await expectCode(
      runtimeOn(world, { recreateOnFailedStart: false }).start(handle),
      "PROVIDER_UNAVAILABLE",
    );
    assert.match(error.message, /did not become ready after start: .*readiness probe/);
    assert.equal(handle.id, old.id);
    assert.ok(!world.calls.some((call) => call.startsWith("create") || call.startsWith("delete")));
  });

  test("a sandbox in state error is replaced without a start; a frozen handle refuses before anything is created", async () => {
    const world = new World();
    const errored = world.add({ ...stoppedSandbox(world), id: "sbx-errored", state: "error" });
    const frozen = Object.freeze(handleOf(errored.id));
    await expectCode(runtimeOn(world).start(frozen), "INVALID_REQUEST");
    assert.ok(!world.calls.some((call) => call.startsWith("create")));
    const handle = handleOf(errored.id);
    await runtimeOn(world).start(handle);
    assert.notEqual(handle.id, errored.id);
    assert.ok(!world.calls.includes(`start ${errored.id}`), "a sandbox in state error is not started");
  });

  test("a sandbox that is not ours is FOREIGN_SANDBOX; an absent one NOT_FOUND; both replace nothing", async () => {
    const world = new World();
    const foreign = world.add({ labels: { [OWNER_LABEL]: "someone-else" } });
    await expectCode(runtimeOn(world).start(handleOf(foreign.id)), "FOREIGN_SANDBOX");
    await expectCode(runtimeOn(world).start(handleOf("sbx-missing")), "NOT_FOUND");
    assert.ok(!world.calls.some((call) => /^(create|delete|start)/.test(call)));
  });
});
