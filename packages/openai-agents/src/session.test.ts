// The session's own contract, against a real LocalRuntime and, for refusals,
// against runtimes that lack a method (nothing may start before a refusal).
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import {
  file,
  localFile,
  Manifest,
  SandboxExposedPortUnavailableError,
  SandboxUnsupportedFeatureError,
  SandboxWorkspaceReadNotFoundError,
} from "@openai/agents-core/sandbox";
import { localTestRuntime, namespacesSkipReason, RecordingRuntime, withoutMethods } from "@sandport/testkit/fakes";
import { SandportSandboxClient, type SandportSandboxSession } from "./index.js";

/** Why the tests that assert what only a namespaced sandbox shows (its `/workspace`, its loopback) skip here, if they do. */
const namespacesOnly = await namespacesSkipReason();

const local = await localTestRuntime("openai-session");
after(() => local.cleanup());

async function session(manifest = new Manifest()): Promise<SandportSandboxSession> {
  const created = await new SandportSandboxClient({ runtime: local.runtime, launch: { ports: [8000] } }).create({
    manifest,
  });
  await created.start();
  return created;
}

describe("SandportSandboxSession", () => {
  test("a command that outlives its yield gets a session id; write_stdin feeds it and reports its exit", async () => {
    const sandbox = await session();
    try {
      const first = await sandbox.exec({ cmd: "read line; echo got $line", yieldTimeMs: 200 });
      assert.equal(typeof first.sessionId, "number");
      assert.equal(first.exitCode, undefined);
      const reply = await sandbox.writeStdin({
        sessionId: first.sessionId as number,
        chars: "hi\n",
        yieldTimeMs: 5_000,
      });
      assert.match(reply, /Process exited with code 0/);
      assert.match(reply, /got hi/);
      assert.match(await sandbox.writeStdin({ sessionId: first.sessionId as number }), /session not found/);
    } finally {
      await sandbox.delete();
    }
  });

  test("Ctrl-C kills a running command; the report gives exit status 137 and says it was killed", async () => {
    const sandbox = await session();
    try {
      const first = await sandbox.exec({ cmd: "sleep 30", yieldTimeMs: 100 });
      const reply = await sandbox.writeStdin({
        sessionId: first.sessionId as number,
        chars: "\u0003",
        yieldTimeMs: 5_000,
      });
      assert.match(reply, /Process exited with code 137: killed before it exited/);
    } finally {
      await sandbox.delete();
    }
  });

  test("files: manifest entries, environment, listDir, pathExists, readFile, a missing file", async () => {
    const sandbox = await session(
      new Manifest({ entries: { "src/a.txt": file({ content: "alpha" }) }, environment: { GREETING: "hej" } }),
    );
    try {
      assert.equal((await sandbox.exec({ cmd: 'printf "$GREETING"' })).output, "hej");
      assert.equal(new TextDecoder().decode(await sandbox.readFile({ path: "src/a.txt", maxBytes: 3 })), "alp");
      assert.deepEqual(await sandbox.listDir({ path: "src" }), [{ name: "a.txt", path: "src/a.txt", type: "file" }]);
      assert.equal(await sandbox.pathExists("src/a.txt"), true);
      assert.equal(await sandbox.directoryExists("src"), true);
      assert.equal(await sandbox.pathExists("nope"), false);
      await assert.rejects(sandbox.readFile({ path: "nope" }), SandboxWorkspaceReadNotFoundError);
    } finally {
      await sandbox.delete();
    }
  });

  test("an exposed port resolves through the runtime's portEndpoint", { skip: namespacesOnly }, async () => {
    const sandbox = await session();
    try {
      const endpoint = await sandbox.resolveExposedPort(8000);
      assert.equal(endpoint.host, "127.0.0.1");
      assert.equal(typeof endpoint.port, "number");
      assert.equal(sandbox.state.exposedPorts?.["8000"]?.port, endpoint.port);
      await assert.rejects(sandbox.resolveExposedPort(8001), SandboxExposedPortUnavailableError);
    } finally {
      await sandbox.delete();
    }
  });

  test("state serialises to the handle; resume reconnects to the same sandbox", async () => {
    const client = new SandportSandboxClient({ runtime: local.runtime });
    const sandbox = await client.create({ manifest: new Manifest({ entries: { "x.txt": file({ content: "x" }) } }) });
    await sandbox.start();
    try {
      const record = await client.serializeSessionState(sandbox.state);
      const state = await client.deserializeSessionState({
        ...record,
        manifest: { root: sandbox.state.manifest.root },
      });
      const resumed = await client.resume(state);
      assert.equal(resumed.state.sandbox.id, sandbox.state.sandbox.id);
      assert.equal((await resumed.exec({ cmd: "cat x.txt" })).output, "x");
    } finally {
      await client.delete(sandbox.state);
    }
    await assert.rejects(client.resume(sandbox.state), /is gone/);
  });
});

describe("refusals come before anything starts", () => {
  test("a terminal (tty) and another user (runAs)", async () => {
    const runtime = new RecordingRuntime();
    const sandbox = await new SandportSandboxClient({ runtime }).create();
    const before = runtime.calls.length;
    await assert.rejects(sandbox.exec({ cmd: "top", tty: true }), SandboxUnsupportedFeatureError);
    await assert.rejects(sandbox.exec({ cmd: "id", runAs: "root" }), SandboxUnsupportedFeatureError);
    await assert.rejects(sandbox.readFile({ path: "a", runAs: "root" }), SandboxUnsupportedFeatureError);
    assert.equal(runtime.calls.length, before);
  });

  test("manifest entries the port cannot write: nothing is launched", async () => {
    const runtime = new RecordingRuntime();
    const client = new SandportSandboxClient({ runtime });
    const manifest = new Manifest({ entries: { "host.txt": localFile({ src: "/etc/hostname" }) } });
    await assert.rejects(client.create({ manifest }), SandboxUnsupportedFeatureError);
    await assert.rejects(client.create({ manifest: new Manifest({ root: "/elsewhere" }) }), /workspace root/);
    assert.deepEqual(runtime.calls, []);
  });

  test("manifest path grants the port cannot honour, and invalid concurrency limits: nothing is launched", async () => {
    const runtime = new RecordingRuntime();
    const client = new SandportSandboxClient({ runtime });
    const unsupported = (feature: string) => (error: unknown) =>
      error instanceof SandboxUnsupportedFeatureError &&
      error.code === "unsupported_feature" &&
      (error.details as { feature?: string } | undefined)?.feature === feature;
    const grant = (extraPathGrants: ConstructorParameters<typeof Manifest>[0]) =>
      client.create({ manifest: new Manifest(extraPathGrants) });
    await assert.rejects(
      grant({ extraPathGrants: [{ path: "/data", hostPath: "/srv/data" }] }),
      unsupported("manifest.extraPathGrants.hostPath"),
    );
    await assert.rejects(grant({ extraPathGrants: [{ path: "/opt/tools" }] }), unsupported("manifest.extraPathGrants"));
    for (const concurrencyLimits of [{ manifestEntries: 0 }, { localDirFiles: Number.NaN }, { manifestEntries: -2 }]) {
      await assert.rejects(
        client.create({ manifest: new Manifest(), concurrencyLimits }),
        (error: unknown) =>
          unsupported("concurrencyLimits")(error) && /concurrency limits must be positive numbers/.test(String(error)),
      );
    }
    assert.deepEqual(runtime.calls, []);
    // What the port can honour is accepted: a grant inside the workspace, valid limits (one write at a time).
    const sandbox = await client.create({
      manifest: new Manifest({ extraPathGrants: [{ path: `${runtime.workspaceRoot}/cache`, readOnly: true }] }),
      concurrencyLimits: { manifestEntries: 2, localDirFiles: 1 },
    });
    await sandbox.delete();
  });

  test("a runtime without spawn offers no write_stdin and runs commands to completion", async () => {
    const runtime = withoutMethods(local.runtime, ["spawn"]);
    const sandbox = await new SandportSandboxClient({ runtime }).create();
    try {
      assert.equal(sandbox.supportsPty(), false);
      const result = await sandbox.exec({ cmd: "sleep 0.3; echo late", yieldTimeMs: 10 });
      assert.equal(result.exitCode, 0);
      assert.equal(result.output.trim(), "late");
    } finally {
      await sandbox.delete();
    }
  });

  test("without stat, listDir, remove or portEndpoint: the framework's unsupported error, nothing sent", async () => {
    const runtime = new RecordingRuntime();
    const sandbox = await new SandportSandboxClient({ runtime }).create();
    const before = runtime.calls.length;
    await assert.rejects(sandbox.pathExists("a"), SandboxUnsupportedFeatureError);
    await assert.rejects(sandbox.listDir({ path: "." }), SandboxUnsupportedFeatureError);
    await assert.rejects(sandbox.resolveExposedPort(80), SandboxUnsupportedFeatureError);
    await assert.rejects(
      sandbox.createEditor().deleteFile({ type: "delete_file", path: "a" }),
      SandboxUnsupportedFeatureError,
    );
    assert.equal(runtime.calls.length, before);
  });
});
