import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { RecordingRuntime } from "../../fakes/index.js";
import type { ResolvedBackend } from "./backend.js";
import { EmulatorFacade } from "./emulator-facade.js";
import { EmulatorServer } from "./http-server.js";
import { SandboxRegistry } from "./sandbox-registry.js";

/** A facade over a real server with one route, recording the order of its stop steps. */
class TestFacade extends EmulatorFacade<EmulatorServer, { note: string }> {
  readonly steps: string[] = [];

  get url(): string {
    return this.server.url;
  }

  protected override async beforeServerStops(): Promise<void> {
    this.steps.push(`before (server stopped: ${this.server.stopped})`);
  }

  protected async shutDown(): Promise<void> {
    this.steps.push(`shut down (server stopped: ${this.server.stopped}, stopping: ${this.stopping})`);
  }
}

async function startFacade(): Promise<{ facade: TestFacade; disposed: () => number }> {
  const server = await EmulatorServer.start();
  server.route({ method: "GET", pattern: "/things/:id", handler: (exchange) => exchange.json(200, { ok: true }) });
  let disposals = 0;
  const facade = new TestFacade(
    server,
    {
      runtime: new RecordingRuntime(),
      hostPaths: false,
      dispose: async () => {
        facade.steps.push("dispose");
        disposals += 1;
      },
    } satisfies ResolvedBackend,
    new SandboxRegistry(),
  );
  return { facade, disposed: () => disposals };
}

describe("EmulatorFacade", () => {
  it("reads the request log, unknown routes and faults from its server", async () => {
    const { facade } = await startFacade();
    try {
      assert.equal((await fetch(`${facade.url}/things/1`)).status, 200);
      assert.equal((await fetch(`${facade.url}/nowhere`)).status, 404);
      assert.equal(facade.countRequests(), 2);
      assert.equal(facade.countRequests("GET /things/:id"), 1);
      assert.equal(facade.countRequests(/^GET \/no/), 1);
      assert.deepEqual(
        facade.requests.map((record) => [record.route, record.status]),
        [
          ["GET /things/:id", 200],
          ["GET /nowhere", 404],
        ],
      );
      assert.deepEqual(facade.unknownRoutes, ["GET /nowhere"]);

      facade.injectFault({ route: "GET /things/:id", fault: { kind: "status", status: 503 }, times: 2 });
      assert.equal((await fetch(`${facade.url}/things/2`)).status, 503);
      facade.clearFaults();
      assert.equal((await fetch(`${facade.url}/things/3`)).status, 200);

      facade.resetRequests();
      assert.deepEqual(facade.requests, []);
      assert.deepEqual(facade.unknownRoutes, []);
    } finally {
      await facade.stop();
    }
  });

  it("lists the registry's sandboxes and exposes the backend's runtime", async () => {
    const { facade } = await startFacade();
    try {
      assert.ok(facade.backend instanceof RecordingRuntime);
      facade.registry.add({
        id: "sb-1",
        metadata: { owner: "me" },
        foreign: true,
        state: "running",
        createdAt: 0,
        data: { note: "x" },
      });
      assert.deepEqual(facade.liveSandboxes(), [
        { id: "sb-1", metadata: { owner: "me" }, foreign: true, state: "running" },
      ]);
    } finally {
      await facade.stop();
    }
  });

  it("stops in order (before, server, shut down, dispose) once, however often it is called", async () => {
    const { facade, disposed } = await startFacade();
    assert.equal(facade.stopping, false);
    const first = facade.stop();
    const second = facade.stop();
    assert.equal(first, second);
    assert.equal(facade.stopping, true);
    await Promise.all([first, second, facade.stop()]);
    assert.deepEqual(facade.steps, [
      "before (server stopped: false)",
      "shut down (server stopped: true, stopping: true)",
      "dispose",
    ]);
    assert.equal(disposed(), 1);
    await assert.rejects(fetch(`${facade.url}/things/1`));
  });
});
