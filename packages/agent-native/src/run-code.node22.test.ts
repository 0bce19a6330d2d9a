// agent-native's real run-code tool (createRunCodeEntry: module building,
// env scrub, loopback bridge with its allowlist) with the bridge registered
// as its sandbox adapter, against a real LocalRuntime. agent-native needs
// Node 22.22+: this file runs under the Node 22 binary. The seam's module is
// not in the package's exports map, so it is imported by file.
import assert from "node:assert/strict";
import { after, afterEach, describe, test } from "node:test";
import { SandportError } from "@sandport/core";
import { localTestRuntime, RecordingRuntime, withoutMethods } from "@sandport/testkit/fakes";
import { createRunCodeEntry } from "../node_modules/@agent-native/core/dist/coding-tools/run-code.js";
import { registerSandboxAdapter } from "../node_modules/@agent-native/core/dist/coding-tools/sandbox/index.js";
import { SandportSandboxAdapter } from "./index.js";

const local = await localTestRuntime("agent-native");
after(() => local.cleanup());
afterEach(() => registerSandboxAdapter(null));
// Where the sandbox shares the host's loopback (no namespaces), the module reaches the bridge directly.
const bridge = local.isolation === "namespaces" ? "tunnel" : "host-network";

/** The app's actions the bridge may call: one read-only lookup. */
const actions = {
  lookup: {
    tool: { description: "Looks a word up.", parameters: { type: "object", properties: { word: { type: "string" } } } },
    readOnly: true,
    run: async ({ word }: { word: string }) => ({ word, length: word.length }),
  },
};

describe(`run-code on a LocalRuntime (isolation: ${local.isolation}, bridge: ${bridge})`, () => {
  test("the module writes a file, calls the parent's bridge, reads the file back", async () => {
    const handle = await local.runtime.launch({ ports: [47_123] });
    try {
      registerSandboxAdapter(new SandportSandboxAdapter({ runtime: local.runtime, handle, bridge }));
      const runCode = createRunCodeEntry(() => actions as never);
      const output = await runCode.run({
        code: [
          'const { writeFileSync, readFileSync } = await import("node:fs");',
          'writeFileSync("note.txt", "written in the sandbox");',
          'const found = await appAction("lookup", { word: "sandport" });',
          'console.log(readFileSync("note.txt", "utf8"), JSON.stringify(found), process.cwd());',
        ].join("\n"),
      });
      const text = typeof output === "string" ? output : JSON.stringify(output);
      assert.match(text, /written in the sandbox/);
      assert.match(text, /\{\\?"word\\?":\\?"sandport\\?",\\?"length\\?":8\}/);
      assert.match(text, new RegExp(`${local.runtime.workspaceRoot}/agent-native-run-`));
      // The run's directory is removed from the held sandbox afterwards.
      assert.deepEqual(
        (await local.runtime.listDir?.(handle, "."))?.filter((entry) => entry.name.startsWith("agent-native-run-")),
        [],
      );
    } finally {
      await local.runtime.destroy(handle);
    }
  });

  test("without a handle each run gets its own sandbox, destroyed afterwards; a timeout is reported", async () => {
    const adapter = new SandportSandboxAdapter({ runtime: local.runtime, bridge, launch: { labels: { test: "an" } } });
    const result = await adapter.run({
      moduleSource: "setTimeout(() => {}, 60_000);",
      env: { PATH: "/usr/bin:/bin" },
      timeoutMs: 300,
      bridgePort: 47_999,
    });
    assert.equal(result.timedOut, true);
    assert.equal(result.exitCode, null);
    assert.deepEqual(await local.runtime.findByLabels({ test: "an" }), []);
  });
});

describe("refusals come before anything starts", () => {
  test("a runtime without portEndpoint cannot tunnel the bridge: UNSUPPORTED, nothing launched", async () => {
    const runtime = new RecordingRuntime();
    const adapter = new SandportSandboxAdapter({ runtime });
    await assert.rejects(
      adapter.run({ moduleSource: "", env: {}, timeoutMs: 1_000, bridgePort: 1 }),
      (error) => SandportError.hasCode(error, "UNSUPPORTED") && /portEndpoint/.test(error.message),
    );
    const noPorts = new SandportSandboxAdapter({ runtime: withoutMethods(local.runtime, ["portEndpoint"]) });
    await assert.rejects(noPorts.run({ moduleSource: "", env: {}, timeoutMs: 1_000, bridgePort: 1 }), /portEndpoint/);
    assert.deepEqual(runtime.calls, []);
  });
});
