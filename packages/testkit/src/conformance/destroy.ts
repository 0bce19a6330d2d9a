import assert from "node:assert/strict";
import type { SandboxHandle } from "@sandport/core";
import { delay, expectCode, fileExists, pollUntil, since } from "./assertions.js";
import { type CheckGroup, GROUP_LABEL, RUN_LABEL } from "./suite.js";

/**
 * Registers `lifecycle.destroy` and `lifecycle.destroyed-validation` (which
 * share one destroyed sandbox) and `lifecycle.destroy-running`.
 */
export function declareDestroyChecks<H extends SandboxHandle>(
  group: CheckGroup<H>,
  noReattach: string | undefined,
  noSearch: string | undefined,
): void {
  const { runtime, suite } = group;
  const labels = { [GROUP_LABEL]: "lifecycle-destroyed" };
  let destroyed: Promise<H> | undefined;
  const destroyedSandbox = () => {
    destroyed ??= (async () => {
      const handle = await suite.launch({ labels });
      await runtime.writeFiles(handle, [{ path: "gone.txt", content: "soon gone" }]);
      await suite.destroy(handle);
      return handle;
    })();
    return destroyed;
  };

  group.check("lifecycle.destroy", async (t) => {
    const handle = await destroyedSandbox();
    if (noReattach === undefined) {
      if (suite.capabilities.verifiedCleanup === true) {
        assert.equal(await runtime.getById!(handle.id), undefined, "getById right after a verified destroy");
      } else {
        t.diagnostic(`verifiedCleanup is ${suite.capabilities.verifiedCleanup}: waiting for getById to forget it`);
        await pollUntil(
          () => runtime.getById!(handle.id),
          (found) => found === undefined,
          { timeoutMs: suite.timeouts.hookMs, intervalMs: 500, what: "getById after destroy" },
        );
      }
    }
    if (noSearch === undefined) {
      const found = await runtime.findByLabels!({ [RUN_LABEL]: suite.runId, ...labels });
      assert.deepEqual(found, [], "findByLabels lists a destroyed sandbox");
    }
    await expectCode(() => runtime.readFile(handle, "gone.txt"), "NOT_FOUND", "readFile after destroy");
    await expectCode(() => runtime.exec(handle, { argv: ["true"] }), "NOT_FOUND", "exec after destroy");
    await expectCode(
      () => runtime.writeFiles(handle, [{ path: "again.txt", content: "x" }]),
      "NOT_FOUND",
      "writeFiles after destroy",
    );
    await runtime.destroy(handle);
  });

  group.check("lifecycle.destroy-running", async () => {
    const { promptMs, pollIntervalMs } = suite.timeouts;
    const handle = await suite.launch({ labels: { [GROUP_LABEL]: "lifecycle-destroy-running" } });
    const call = runtime.exec(handle, { shell: "echo started > started.txt; sleep 30", timeoutMs: 60_000 });
    const settled = call.then(
      () => performance.now(),
      () => performance.now(),
    );
    try {
      await pollUntil(
        () => fileExists(runtime, handle, "started.txt"),
        (started) => started,
        { timeoutMs: promptMs * 2, intervalMs: pollIntervalMs, what: "waiting for the command to start" },
      );
    } finally {
      await suite.destroy(handle);
    }
    const destroyedAt = performance.now();
    const outcome = await Promise.race([settled, delay(promptMs).then(() => undefined)]);
    assert.ok(outcome !== undefined, `the running exec was still pending ${promptMs} ms after destroy resolved`);
    assert.ok(since(destroyedAt) <= promptMs);
  });

  group.check("lifecycle.destroyed-validation", async () => {
    const handle = await destroyedSandbox();
    await expectCode(
      () => runtime.exec(handle, { shell: "true", timeoutMs: -1 }),
      "INVALID_REQUEST",
      "an invalid exec against a destroyed sandbox",
    );
    await expectCode(() => runtime.readFile(handle, "../x"), "INVALID_REQUEST", "readFile('../x') of a destroyed one");
    await expectCode(
      () => runtime.writeFiles(handle, [{ path: "/etc/x", content: "x" }]),
      "INVALID_REQUEST",
      "writeFiles('/etc/x') of a destroyed one",
    );
  });
}
