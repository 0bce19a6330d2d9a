// The real @ai-sdk/harness HarnessAgent over createHarnessSandboxProvider on a real LocalRuntime. The
// adapter is this test's own (harness adapters wrap third-party coding agents): like a bridge-backed
// adapter, it bootstraps files into the sandbox, serves from a declared port inside it and reaches that
// port through getPortEndpoint.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import type { HarnessV1NetworkSandboxSession } from "@ai-sdk/harness";
import { HarnessAgent, type HarnessAgentAdapter } from "@ai-sdk/harness/agent";
import { type LocalTestRuntime, localTestRuntime, namespacesSkipReason } from "@sandport/testkit/fakes";
import { SESSION_LABEL } from "./harness-options.js";
import { createHarnessSandboxProvider } from "./harness-provider.js";

/** Why the tests that assert what only a namespaced sandbox shows (its `/workspace`, its loopback) skip here, if they do. */
const namespacesOnly = await namespacesSkipReason();

const PORT = 20_000 + Math.floor(Math.random() * 20_000);
const usage = {
  inputTokens: { total: 0, noCache: 0, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 0, text: 0, reasoning: undefined },
};

/** GET `path` from a server that may still be starting. */
async function fetchWhenUp(url: string, headers: Record<string, string> | undefined): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    try {
      const response = await fetch(url, headers ? { headers } : {});
      return await response.text();
    } catch (error) {
      if (attempt > 100) throw error;
      await delay(50);
    }
  }
}

/** An adapter whose turn answers with what an HTTP server inside the sandbox serves. */
const portAdapter: HarnessAgentAdapter = {
  specificationVersion: "harness-v1",
  harnessId: "port-echo",
  builtinTools: {},
  getBootstrap: async () => ({
    harnessId: "port-echo",
    bootstrapDir: ".port-echo",
    files: [{ path: ".port-echo/greeting.txt", content: "hello from the bootstrap" }],
    commands: [{ command: "cp greeting.txt served.txt" }],
  }),
  doStart: async ({ sessionId, sandboxSession, sessionWorkDir, resumeFrom }) => {
    const network = sandboxSession as HarnessV1NetworkSandboxSession;
    const session = {
      sessionId,
      isResume: resumeFrom !== undefined,
      doPromptTurn: async ({ emit }: { emit: (part: unknown) => void }) => {
        const served = await network.readTextFile({ path: ".port-echo/served.txt" });
        await network.writeTextFile({ path: `${sessionWorkDir}/index.txt`, content: `${served} in ${sessionWorkDir}` });
        const server = await network.spawn({
          command: `exec python3 -m http.server ${PORT} --bind 127.0.0.1`,
          workingDirectory: sessionWorkDir,
        });
        const done = (async () => {
          try {
            const endpoint = await network.getPortEndpoint({ port: PORT });
            const text = await fetchWhenUp(`${endpoint.url}/index.txt`, endpoint.headers as Record<string, string>);
            emit({ type: "stream-start" });
            emit({ type: "text-start", id: "t" });
            emit({ type: "text-delta", id: "t", delta: text });
            emit({ type: "text-end", id: "t" });
            emit({ type: "finish-step", finishReason: { unified: "stop", raw: undefined }, usage });
            emit({ type: "finish", finishReason: { unified: "stop", raw: undefined }, totalUsage: usage });
          } finally {
            await server.kill();
          }
        })();
        return { submitToolResult: async () => {}, done };
      },
      doCompact: async () => {},
      doContinueTurn: async () => {
        throw new Error("not used");
      },
      doSuspendTurn: async () => {
        throw new Error("not used");
      },
      doDetach: async () => ({
        type: "resume-session" as const,
        harnessId: "port-echo",
        specificationVersion: "harness-v1" as const,
        data: { sessionWorkDir },
      }),
      doStop: async () => ({
        type: "resume-session" as const,
        harnessId: "port-echo",
        specificationVersion: "harness-v1" as const,
        data: null,
      }),
      doDestroy: async () => {},
    };
    return session as unknown as Awaited<ReturnType<HarnessAgentAdapter["doStart"]>>;
  },
};

// HarnessAgent on createHarnessSandboxProvider over LocalRuntime.
let local: LocalTestRuntime;
before(async () => {
  local = await localTestRuntime("ai-sdk-harness");
});
after(() => local.cleanup());

test("create (bootstrap, port endpoint, a turn), detach, resume by session id in a fresh provider, destroy", {
  skip: namespacesOnly,
}, async () => {
  const firstCreates: string[] = [];
  const provider = createHarnessSandboxProvider({ runtime: local.runtime, launch: { ports: [PORT] } });
  const agent = new HarnessAgent({
    harness: portAdapter,
    sandbox: provider,
    sandboxConfig: {
      onBootstrap: async ({ session }) => {
        firstCreates.push("bootstrap");
        await session.run({ command: "true" });
      },
      bootstrapHash: "v1",
    },
  });

  const session = await agent.createSession({ sessionId: "session-one" });
  const [sandbox] = await local.runtime.findByLabels({ [SESSION_LABEL]: "session-one" });
  assert.ok(sandbox, "the sandbox carries the session id");
  assert.deepEqual(firstCreates, ["bootstrap"], "onFirstCreate ran once, on the fresh launch");
  const result = await agent.generate({ session, prompt: "what is served?" });
  assert.match(result.text, /^hello from the bootstrap in \/.*port-echo/);

  const state = await session.detach();
  const resumed = await new HarnessAgent({
    harness: portAdapter,
    sandbox: createHarnessSandboxProvider({ runtime: local.runtime, launch: { ports: [PORT] } }),
  }).createSession({ sessionId: "session-one", resumeFrom: state });
  assert.deepEqual(firstCreates, ["bootstrap"], "resuming launched nothing");
  await resumed.destroy();
  assert.equal(await local.runtime.getById(sandbox.id), undefined, "destroy removed the sandbox");
});

test("the network session: id, base directory, ports, ws endpoints, restricted view, stop without the port's stop", {
  skip: namespacesOnly,
}, async () => {
  // A runtime without stop (where this host could freeze sandboxes, the local runtime has one).
  const unstoppable = await localTestRuntime("ai-sdk-harness-no-stop", { stoppable: false });
  const provider = createHarnessSandboxProvider({ runtime: unstoppable.runtime, launch: { ports: [PORT] } });
  const session = await provider.createSession();
  try {
    assert.equal(session.defaultWorkingDirectory, unstoppable.runtime.workspaceRoot);
    assert.deepEqual(session.ports, [PORT]);
    assert.ok((await unstoppable.runtime.getById(session.id))?.id);
    const endpoint = await session.getPortEndpoint({ port: PORT, protocol: "ws" });
    assert.match(endpoint.url, /^ws:\/\//);
    // The local runtime's endpoints carry a credential header, which a bare URL cannot: getPortUrl refuses.
    assert.ok(Object.keys((await session.getPortEndpoint({ port: PORT })).headers ?? {}).length > 0);
    await assert.rejects(async () => await session.getPortUrl({ port: PORT }), /needs request headers/);
    const restricted = session.restricted();
    assert.equal("destroy" in restricted || "getPortEndpoint" in restricted, false);
    assert.equal((await restricted.run({ command: "pwd" })).stdout.trim(), unstoppable.runtime.workspaceRoot);
    await assert.rejects(async () => await session.stop(), { name: "AI_HarnessCapabilityUnsupportedError" });
  } finally {
    await session.destroy();
    await unstoppable.cleanup();
  }
});
