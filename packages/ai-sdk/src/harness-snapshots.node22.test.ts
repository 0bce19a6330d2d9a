// The real @ai-sdk/harness HarnessAgent over createHarnessSandboxProvider on a real LocalRuntime: with the
// port's snapshots, a bootstrap identity is bootstrapped once and snapshotted, and a later session with the
// same identity starts from that snapshot without running onFirstCreate again; without them every fresh
// sandbox is bootstrapped.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { HarnessAgent, type HarnessAgentAdapter } from "@ai-sdk/harness/agent";
import type { SandboxRuntime } from "@sandport/core";
import { type LocalTestRuntime, localTestRuntime, withoutMethods } from "@sandport/testkit/fakes";
import { IDENTITY_LABEL, SESSION_LABEL } from "./harness-options.js";
import { createHarnessSandboxProvider } from "./harness-provider.js";

/** An adapter with no turns: these tests need only the session's sandbox. */
const idleAdapter: HarnessAgentAdapter = {
  specificationVersion: "harness-v1",
  harnessId: "idle",
  builtinTools: {},
  doStart: async ({ sessionId }) => {
    const fail = async () => {
      throw new Error("not used");
    };
    const session = {
      sessionId,
      isResume: false,
      doPromptTurn: fail,
      doCompact: async () => {},
      doContinueTurn: fail,
      doSuspendTurn: fail,
      doDetach: fail,
      doStop: async () => ({
        type: "resume-session" as const,
        harnessId: "idle",
        specificationVersion: "harness-v1" as const,
        data: null,
      }),
      doDestroy: async () => {},
    };
    return session as unknown as Awaited<ReturnType<HarnessAgentAdapter["doStart"]>>;
  },
};

let local: LocalTestRuntime;
before(async () => {
  local = await localTestRuntime("ai-sdk-harness-snapshots");
});
after(() => local.cleanup());

/** Two sessions of one agent (same bootstrap, so same identity); how many bootstraps ran, and the second's files. */
async function twoSessions(runtime: SandboxRuntime, prefix: string) {
  const bootstraps: string[] = [];
  const agent = new HarnessAgent({
    harness: idleAdapter,
    sandbox: createHarnessSandboxProvider({ runtime }),
    sandboxConfig: {
      onBootstrap: async ({ session }) => {
        bootstraps.push("bootstrap");
        await session.run({ command: "echo baked >> bootstrap.txt" });
      },
      bootstrapHash: `v-${prefix}`,
    },
  });
  const first = await agent.createSession({ sessionId: `${prefix}-one` });
  const second = await agent.createSession({ sessionId: `${prefix}-two` });
  const [sandbox] = await local.runtime.findByLabels({ [SESSION_LABEL]: `${prefix}-two` });
  assert.ok(sandbox);
  const baked = new TextDecoder().decode(await local.runtime.readFile(sandbox, "bootstrap.txt"));
  await first.destroy();
  await second.destroy();
  return { bootstraps, baked };
}

test("with snapshots, one identity is bootstrapped once: the next session starts from its snapshot; without, every session bootstraps", async () => {
  const before = await local.runtime.listSnapshots({});
  const { bootstraps, baked } = await twoSessions(local.runtime, "snapshotted");
  assert.deepEqual(bootstraps, ["bootstrap"], "onFirstCreate ran once");
  assert.equal(baked, "baked\n", "the second sandbox has the bootstrap's files, made once");
  const taken = (await local.runtime.listSnapshots({})).filter(
    (snapshot) => !before.some((old) => old.id === snapshot.id),
  );
  assert.equal(taken.length, 1);
  assert.ok(taken[0]?.labels[IDENTITY_LABEL], "the snapshot carries the identity");
  for (const snapshot of taken) await local.runtime.deleteSnapshot(snapshot);

  const plain = withoutMethods(local.runtime, ["snapshot", "listSnapshots", "deleteSnapshot"]);
  const without = await twoSessions(plain, "plain");
  assert.deepEqual(without.bootstraps, ["bootstrap", "bootstrap"], "without snapshots each fresh sandbox bootstraps");
  assert.equal(without.baked, "baked\n");
  assert.equal((await local.runtime.listSnapshots({})).length, before.length, "nothing taken");
});
