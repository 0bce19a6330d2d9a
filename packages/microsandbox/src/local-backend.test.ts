// The local backend cannot boot a microVM on the machines that test it, so its
// binding is tested here with a fake of the SDK slice that records every call:
// the default backend pushed around each entry-point call, what a launch asks
// the builder for, and lookups, ownership and verified destroy on top of it.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { LAUNCH_KEY_LABEL, OWNER_LABEL } from "@sandport/core";
import { expectCode } from "@sandport/testkit/assertions";
import type {
  MicrosandboxSdk,
  MsbListBuilder,
  MsbSandbox,
  MsbSandboxBuilder,
  MsbSandboxHandle,
} from "./internal/sdk-types.js";
import { MicrosandboxRuntime } from "./microsandbox-runtime.js";
import type { MicrosandboxRuntimeOptions } from "./options.js";

/** A stored sandbox of the fake. */
interface Stored {
  labels: Record<string, string>;
  env: Record<string, string>;
}

/** The SDK slice over an in-memory table, logging each call as one line. */
class FakeMicrosandbox {
  readonly log: string[] = [];
  readonly stored = new Map<string, Stored>();
  /** Names that a remove leaves in place (a delete the service never carries out). */
  readonly undeletable = new Set<string>();
  #tokens = 0;

  sdk(): MicrosandboxSdk {
    const log = this.log;
    return {
      native: {
        pushDefaultBackend: (kind, url, apiKey) => {
          log.push(`push ${kind}${url ? ` ${url}` : ""}${apiKey ? " <key>" : ""}`);
          return ++this.#tokens;
        },
        popDefaultBackend: () => void log.push("pop"),
      },
      Sandbox: {
        builder: (name) => this.#builder(name),
        get: async (name) => {
          log.push(`get ${name}`);
          const stored = this.stored.get(name);
          if (!stored) throw Object.assign(new Error("sandbox not found"), { name: "SandboxNotFoundError" });
          return this.#record(name, stored);
        },
        start: async (name) => {
          log.push(`start ${name}`);
          return this.#sandbox(name);
        },
        remove: async (name) => {
          log.push(`remove ${name}`);
          if (!this.undeletable.has(name)) this.stored.delete(name);
        },
        listWith: async (configure) => {
          const options: Record<string, unknown> = {};
          const list: MsbListBuilder = {
            limit(limit) {
              options.limit = limit;
              return this;
            },
            cursor(cursor) {
              options.cursor = cursor;
              return this;
            },
            labels(labels) {
              options.labels = labels;
              return this;
            },
          };
          configure(list);
          log.push(`list ${JSON.stringify(options)}`);
          // The fake's filter is deliberately sloppy (owner only): the adapter must check the rest itself.
          const owner = (options.labels as Record<string, string>)[OWNER_LABEL];
          const sandboxes = [...this.stored]
            .filter(([, stored]) => stored.labels[OWNER_LABEL] === owner)
            .map(([name, stored]) => this.#record(name, stored));
          return { sandboxes };
        },
      },
    };
  }

  #builder(name: string): MsbSandboxBuilder {
    const log = this.log;
    log.push(`builder ${name}`);
    const settings: Stored = { labels: {}, env: {} };
    const step = (call: string): MsbSandboxBuilder => {
      log.push(`  ${call}`);
      return builder;
    };
    const builder: MsbSandboxBuilder = {
      image: (reference) => step(`image ${reference}`),
      fromSnapshot: (snapshot) => step(`fromSnapshot ${snapshot}`),
      cpus: (count) => step(`cpus ${count}`),
      memory: (mebibytes) => step(`memory ${mebibytes}`),
      workdir: (path) => step(`workdir ${path}`),
      envs: (vars) => {
        settings.env = vars;
        return step(`envs ${JSON.stringify(vars)}`);
      },
      labels: (labels) => {
        settings.labels = labels;
        return step(`labels ${Object.keys(labels).sort().join(",")}`);
      },
      maxDuration: (seconds) => step(`maxDuration ${seconds}`),
      idleTimeout: (seconds) => step(`idleTimeout ${seconds}`),
      disableNetwork: () => step("disableNetwork"),
      create: async () => {
        log.push(`create ${name}`);
        this.stored.set(name, settings);
        return this.#sandbox(name);
      },
    };
    return builder;
  }

  #sandbox(name: string): MsbSandbox {
    const log = this.log;
    const unused = async () => assert.fail("not used by these tests");
    return {
      name,
      execStreamWith: unused,
      stop: async () => void log.push(`stop ${name}`),
      fs: () => ({
        mkdir: async (path) => void log.push(`mkdir ${path}`),
        readStream: unused,
        write: unused,
        list: unused,
        remove: unused,
        removeDir: unused,
      }),
    };
  }

  #record(name: string, stored: Stored): MsbSandboxHandle {
    return {
      name,
      status: "running",
      configJson: JSON.stringify({
        labels: stored.labels,
        env: Object.entries(stored.env).map(([key, value]) => ({ key, value })),
      }),
      createdAt: new Date("2026-11-30T12:00:00Z"),
      connect: async () => this.#sandbox(name),
      stop: async () => void this.log.push(`stop ${name}`),
    };
  }
}

function localRuntime(fake: FakeMicrosandbox, options: Partial<MicrosandboxRuntimeOptions> = {}): MicrosandboxRuntime {
  return new MicrosandboxRuntime({ backend: { kind: "local" }, owner: "unit", sdk: fake.sdk(), ...options });
}

describe("MicrosandboxRuntime on the local backend (fake SDK)", () => {
  test("a launch asks for everything explicitly, with `local` pushed as the default around the create", async () => {
    const fake = new FakeMicrosandbox();
    const runtime = localRuntime(fake, { snapshot: "warm-python", idleTimeoutMs: 90_500 });
    const handle = await runtime.launch({ env: { A: "1" }, labels: { job: "7" }, lifetimeMs: 1_500 });
    assert.match(handle.id, /^sandport-[0-9a-f-]{36}$/);
    assert.deepEqual(handle.labels, { job: "7" });
    const [push, builder, ...rest] = fake.log;
    assert.equal(push, "push local");
    assert.equal(builder, `builder ${handle.id}`);
    assert.deepEqual(rest, [
      "  fromSnapshot warm-python",
      "  cpus 1",
      "  memory 512",
      "  workdir /workspace",
      '  envs {"A":"1"}',
      `  labels job,${LAUNCH_KEY_LABEL},${OWNER_LABEL}`,
      "  maxDuration 2",
      "  idleTimeout 91",
      `create ${handle.id}`,
      "pop",
    ]);
    assert.equal(fake.stored.get(handle.id)?.labels[OWNER_LABEL], "unit");
  });

  test("a template names the image (over the snapshot); resources, network and lifetime are translated", async () => {
    const fake = new FakeMicrosandbox();
    const runtime = localRuntime(fake, { snapshot: "warm-python", network: false, maxDurationMs: 600_000 });
    await runtime.launch({ template: "python:3.12", resources: { cpus: 2, memoryMiB: 1000 } });
    assert.deepEqual(
      fake.log.filter((line) => line.startsWith("  ") && !/envs|labels|workdir/.test(line)),
      ["  image python:3.12", "  cpus 2", "  memory 1000", "  maxDuration 600", "  disableNetwork"],
    );
  });

  test("what microsandbox cannot honour is refused before any call", async () => {
    const fake = new FakeMicrosandbox();
    const runtime = localRuntime(fake);
    await expectCode(() => runtime.launch({ resources: { cpus: 0.5 } }), "UNSUPPORTED", "fractional cpus");
    await expectCode(() => runtime.launch({ resources: { memoryMiB: 1000.5 } }), "UNSUPPORTED", "fractional MiB");
    await expectCode(() => runtime.launch({ resources: { maxProcesses: 10 } }), "UNSUPPORTED", "maxProcesses");
    await expectCode(() => runtime.launch({ resources: { diskMiB: 2048 } }), "UNSUPPORTED", "diskMiB");
    await expectCode(() => runtime.launch({ ports: [8080] }), "UNSUPPORTED", "ports");
    await expectCode(
      () => runtime.launch({ env: { SANDPORT_EXEC_ID: "x" } }),
      "INVALID_REQUEST",
      "a reserved env name",
    );
    await expectCode(
      () => runtime.launch({ labels: { "sandport.owner": "x" } }),
      "INVALID_REQUEST",
      "a reserved label",
    );
    assert.deepEqual(fake.log, []);
  });

  test("lookups check ownership; findByLabels re-checks what the list returns; destroy is verified", async () => {
    const fake = new FakeMicrosandbox();
    const runtime = localRuntime(fake);
    const mine = await runtime.launch({ labels: { pool: "a" } });
    const other = await runtime.launch({ labels: { pool: "b" } });
    fake.stored.set("someone-elses", { labels: { pool: "a" }, env: {} });
    fake.log.length = 0;

    assert.deepEqual(await runtime.getById(mine.id), { ...mine, createdAt: "2026-11-30T12:00:00.000Z" });
    assert.equal(await runtime.getById("sandport-gone"), undefined);
    await expectCode(() => runtime.getById("someone-elses"), "FOREIGN_SANDBOX");
    const found = await runtime.findByLabels({ pool: "a" });
    assert.deepEqual(
      found.map((handle) => handle.id),
      [mine.id],
      "the other pool and the foreign sandbox are filtered out here",
    );
    assert.ok(fake.log.includes(`list {"labels":{"pool":"a","${OWNER_LABEL}":"unit"},"limit":100}`));
    assert.ok(fake.log.every((line) => !line.startsWith("push") || line === "push local"));

    await expectCode(
      () => runtime.destroy({ id: "someone-elses", provider: "microsandbox", labels: {} }),
      "FOREIGN_SANDBOX",
    );
    assert.ok(fake.stored.has("someone-elses"), "a foreign sandbox is never removed");
    fake.log.length = 0;
    await runtime.destroy(mine);
    assert.deepEqual(fake.log, ["push local", `remove ${mine.id}`, "pop", "push local", `get ${mine.id}`, "pop"]);
    await runtime.destroy(mine);

    fake.undeletable.add(other.id);
    const unverified = await expectCode(() => runtime.destroy(other, { timeoutMs: 1_200 }), "DESTROY_UNVERIFIED");
    assert.equal(unverified.retryable, true);
    assert.equal(fake.stored.size, 2);
  });
});
