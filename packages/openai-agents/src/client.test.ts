// The client's own contract against a real LocalRuntime: what a session's
// serialised state keeps, and what create() has done before it returns.
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { Manifest } from "@openai/agents-core/sandbox";
import { localTestRuntime } from "@sandport/testkit/fakes";
import { SandportSandboxClient } from "./index.js";

const local = await localTestRuntime("openai-client");
after(() => local.cleanup());

describe("SandportSandboxClient", () => {
  test("serialised state keeps plain environment values and never an ephemeral one; commands get both", async () => {
    const client = new SandportSandboxClient({ runtime: local.runtime });
    const manifest = new Manifest({
      environment: {
        PUBLIC_NAME: "visible-value",
        API_TOKEN: { value: "secret-static", ephemeral: true },
        SESSION_KEY: { value: "", resolve: async () => "secret-resolved", ephemeral: true },
        BUILD_ID: { value: "", resolve: async () => "resolved-build" },
      },
    });
    const sandbox = await client.create({ manifest });
    await sandbox.start();
    try {
      const seen = await sandbox.exec({
        cmd: 'printf "%s %s %s %s" "$PUBLIC_NAME" "$API_TOKEN" "$SESSION_KEY" "$BUILD_ID"',
      });
      assert.equal(seen.output, "visible-value secret-static secret-resolved resolved-build");
      const record = await client.serializeSessionState(sandbox.state);
      assert.deepEqual(record.environment, { PUBLIC_NAME: "visible-value", BUILD_ID: "resolved-build" });
      assert.doesNotMatch(JSON.stringify(record), /secret-/);
      // A session rebuilt from the record has the persisted values back, and no ephemeral one.
      const restored = await client.deserializeSessionState({
        ...record,
        manifest: { root: sandbox.state.manifest.root },
      });
      assert.deepEqual(restored.environment, { PUBLIC_NAME: "visible-value", BUILD_ID: "resolved-build" });
    } finally {
      await sandbox.delete();
    }
  });
});
