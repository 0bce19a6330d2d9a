// Agent37Runtime's options: refused before any I/O, every default from here and
// none from the environment; and the instance plane's auth header, as chosen,
// against an emulator that takes only that one.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { startAgent37Emulator } from "@sandport/testkit/emulators/agent37";
import { Agent37Runtime } from "./agent37-runtime.js";
import { resolveOptions } from "./options.js";

describe("resolveOptions", () => {
  test("defaults", () => {
    const options = resolveOptions({ apiKey: "sk_live_x" });
    assert.equal(options.baseUrl, "https://api.agent37.com");
    assert.equal(options.instanceAuth, "authorization");
    assert.equal(options.template, "agent37-hermes");
    assert.equal(options.workspaceRoot, "/home/node/workspace");
    assert.equal(options.stateDirectory, "/home/node/.sandport");
    assert.equal(options.runBudgetMs, 280_000);
    assert.equal(options.maxOutputBytes, 500_000);
    assert.equal(options.maxListedInstances, 1000);
  });

  test("refusals", () => {
    assert.throws(() => resolveOptions({} as never), /apiKey/);
    assert.throws(() => resolveOptions({ apiKey: "k", runBudgetMs: 300_000 }), /runBudgetMs must be at most 280000/);
    assert.throws(() => resolveOptions({ apiKey: "k", network: false }), /network must be true/);
    assert.throws(() => resolveOptions({ apiKey: "k", instanceAuth: "query" as never }), /instanceAuth/);
    assert.throws(() => resolveOptions({ apiKey: "k", workspaceRoot: "/srv/work" }), /inside homeDirectory/);
    assert.throws(() => resolveOptions({ apiKey: "k", sdk: {} } as never), /sdk/);
    assert.throws(() => resolveOptions({ apiKey: "k", baseUrl: "ftp://x" }), /baseUrl/);
  });
});

describe("the instance plane's auth header", () => {
  for (const header of ["authorization", "x-agent37-key"] as const) {
    test(`${header}: files go through with it; the other header alone is refused`, async () => {
      const emulator = await startAgent37Emulator({
        instanceAuth: header === "authorization" ? "bearer" : "x-agent37-key",
      });
      try {
        const base = { apiKey: emulator.apiKey, baseUrl: emulator.baseUrl, owner: "auth-tests" };
        const runtime = new Agent37Runtime({ ...base, instanceAuth: header });
        const handle = await runtime.launch();
        await runtime.writeFiles(handle, [{ path: "a.txt", content: "a" }]);
        assert.equal(new TextDecoder().decode(await runtime.readFile(handle, "a.txt")), "a");
        const other = header === "authorization" ? "x-agent37-key" : "authorization";
        const wrong = new Agent37Runtime({ ...base, instanceAuth: other });
        const found = await wrong.getById(handle.id);
        assert.ok(found);
        // A write goes to the instance plane (a read there, once commands may have run, is one exec on the API).
        await assert.rejects(wrong.writeFiles(found, [{ path: "b.txt", content: "b" }]), { code: "AUTH" });
        await runtime.destroy(handle);
      } finally {
        await emulator.stop();
      }
    });
  }
});
