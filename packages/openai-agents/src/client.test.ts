// The client's own contract against a real LocalRuntime: what a session's
// serialised state keeps, and what create() has done before it returns.
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import {
  dir,
  file,
  Manifest,
  SandboxLifecycleError,
  SandboxUnsupportedFeatureError,
} from "@openai/agents-core/sandbox";
import { SandportError } from "@sandport/core";
import { localTestRuntime, providerDown, RecordingRuntime } from "@sandport/testkit/fakes";
import { SandportSandboxClient } from "./index.js";

const local = await localTestRuntime("openai-client");
after(() => local.cleanup());

describe("SandportSandboxClient", () => {
  test("a launch.network the runtime cannot enforce is SandboxUnsupportedFeatureError, nothing launched", async () => {
    // Under isolation "none" commands always have the host's network: the runtime enforces no policy.
    const plain = await localTestRuntime("openai-network-none", { isolation: "none" });
    try {
      const client = new SandportSandboxClient({
        runtime: plain.runtime,
        launch: { network: { allow: ["api.example.com"] } },
      });
      await assert.rejects(client.create({ manifest: new Manifest({}) }), (error: unknown) => {
        assert.ok(error instanceof SandboxUnsupportedFeatureError, String(error));
        assert.equal(error.details?.feature, "network");
        assert.ok(SandportError.hasCode(error.details?.cause, "UNSUPPORTED"), "the runtime's refusal is the cause");
        return true;
      });
      assert.deepEqual(await plain.runtime.findByLabels({}), [], "no sandbox was created");
    } finally {
      await plain.cleanup();
    }
  });

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

  test("serialised state carries the manifest, as UnixLocal's and E2B's do: a JSON round trip without the runner resumes", async () => {
    const client = new SandportSandboxClient({ runtime: local.runtime });
    const sandbox = await client.create({
      manifest: new Manifest({
        entries: { "notes/x.txt": file({ content: "x" }) },
        environment: { MODE: "kept", TOKEN: { value: "secret-static", ephemeral: true } },
      }),
    });
    try {
      const record = JSON.parse(JSON.stringify(await client.serializeSessionState(sandbox.state)));
      assert.equal(record.manifest?.root, local.runtime.workspaceRoot);
      assert.doesNotMatch(JSON.stringify(record), /secret-/);
      const state = await client.deserializeSessionState(record);
      assert.equal(state.manifest.root, sandbox.state.manifest.root);
      assert.deepEqual(Object.keys(state.manifest.entries), ["notes/x.txt"]);
      // The framework's record keeps the manifest's persistent environment only, as its own clients' do.
      assert.deepEqual(Object.keys(state.manifest.environment), ["MODE"]);
      const resumed = await client.resume(state);
      assert.equal((await resumed.exec({ cmd: 'cat notes/x.txt; printf " $MODE"' })).output, "x kept");
    } finally {
      await sandbox.delete();
    }
  });

  test("close() destroys the sandbox, as UnixLocal's and E2B's close do; shutdown() releases it and it lives on", async () => {
    const client = new SandportSandboxClient({ runtime: local.runtime });
    const sandbox = await client.create({ manifest: new Manifest() });
    const id = sandbox.state.sandbox.id;
    try {
      await sandbox.shutdown();
      assert.ok(await local.runtime.getById(id), "shutdown() leaves the sandbox running");
      assert.equal(
        (await client.resume(sandbox.state).then((again) => again.exec({ cmd: "echo alive" }))).output,
        "alive\n",
      );
      await Promise.all([sandbox.close(), sandbox.close()]);
      assert.equal(await local.runtime.getById(id), undefined, "close() destroyed the sandbox");
      await sandbox.close();
    } finally {
      await client.delete(sandbox.state);
    }
  });

  test("create() writes the manifest and resolves its environment: a command right after it finds both", async () => {
    const client = new SandportSandboxClient({ runtime: local.runtime });
    const sandbox = await client.create({
      manifest: new Manifest({
        entries: { "src/app.txt": file({ content: "from the manifest" }), "out/": dir() },
        environment: { MODE: "ready" },
      }),
    });
    try {
      assert.equal(sandbox.state.workspaceReady, true);
      const seen = await sandbox.exec({ cmd: 'cat src/app.txt; printf " $MODE "; test -d out && echo out-exists' });
      assert.equal(seen.output, "from the manifest ready out-exists\n");
      // start() (the runner calls it) has nothing left to write.
      await sandbox.start();
    } finally {
      await sandbox.delete();
    }
  });

  test("a manifest file without permissions gets the framework's default mode, 0755: a script runs as it is", async () => {
    const client = new SandportSandboxClient({ runtime: local.runtime });
    const sandbox = await client.create({
      manifest: new Manifest({
        entries: {
          "bin/run.sh": file({ content: "#!/bin/sh\necho ran\n" }),
          "private.txt": file({ content: "p", permissions: { owner: 6, group: 0, other: 0 } }),
        },
      }),
    });
    try {
      const seen = await sandbox.exec({ cmd: "stat -c %a bin/run.sh private.txt; ./bin/run.sh" });
      assert.equal(seen.output, "755\n600\nran\n");
    } finally {
      await sandbox.delete();
    }
  });

  test("a manifest that cannot be written: create() rejects and destroys the sandbox it launched", async () => {
    const runtime = new RecordingRuntime().fail({ method: "writeFiles", error: providerDown });
    const client = new SandportSandboxClient({ runtime });
    await assert.rejects(
      client.create({ manifest: new Manifest({ entries: { "a.txt": file({ content: "a" }) } }) }),
      /503 from provider/,
    );
    assert.deepEqual(
      runtime.calls.map((call) => call.method),
      ["launch", "writeFiles", "destroy"],
    );
    assert.equal(runtime.sandboxes.size, 0);
  });

  test("a manifest that cannot be written and a sandbox that cannot be destroyed: the error names both", async () => {
    const runtime = new RecordingRuntime()
      .fail({ method: "writeFiles", error: providerDown })
      .fail({ method: "destroy", error: () => new Error("destroy refused") });
    const client = new SandportSandboxClient({ runtime });
    await assert.rejects(
      client.create({ manifest: new Manifest({ entries: { "a.txt": file({ content: "a" }) } }) }),
      (error: unknown) =>
        error instanceof SandboxLifecycleError &&
        /503 from provider/.test(error.message) &&
        /destroy refused/.test(error.message),
    );
  });
});
