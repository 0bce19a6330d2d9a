import assert from "node:assert/strict";
import { after } from "node:test";
import { type LaunchSpec, OWNER_LABEL, type SandboxHandle } from "@sandport/core";
import { declareAbortedCallChecks } from "./aborted-calls.js";
import { assertSucceeded, expectCode, fileExists, pollUntil, readText } from "./assertions.js";
import { declareDestroyChecks } from "./destroy.js";
import { declareForkChecks } from "./fork.js";
import { declareNetworkAllowChecks } from "./network-allow.js";
import { declareNetworkPolicyChecks } from "./network-policy.js";
import { declareSnapshotRefusalChecks } from "./snapshots.js";
import { declareStopKeepsChecks } from "./stop-keeps.js";
import { type CheckGroup, GROUP_LABEL, RUN_LABEL } from "./suite.js";

/**
 * Registers the sandbox lifecycle checks: handles, reattach (same and new
 * instance), label search, separate workspaces, refused launches (network
 * policies and snapshots too), network policies enforced from inside, verified
 * destroy, detached launch and stop/start.
 */
export function declareLifecycleChecks<H extends SandboxHandle>(group: CheckGroup<H>): void {
  const { runtime, suite } = group;
  const caps = suite.capabilities;
  const noReattach = caps.reattach === true ? undefined : `reattach is ${caps.reattach}: the runtime has no getById`;
  const noSearch = caps.labelSearch === true ? undefined : `labelSearch is ${caps.labelSearch}: no findByLabels`;

  // A second sandbox, launched only if a check needs it and destroyed with the group.
  let second: Promise<H> | undefined;
  const secondSandbox = () => {
    second ??= suite.launch({ labels: { [GROUP_LABEL]: "lifecycle-second" } });
    return second;
  };
  after(async () => {
    const handle = await second?.catch(() => undefined);
    if (handle) await suite.destroy(handle);
  });

  group.check("lifecycle.handle", async () => {
    const handle = group.sandbox();
    assert.ok(typeof handle.id === "string" && handle.id.length > 0, "id is a non-empty string");
    assert.equal(handle.provider, runtime.provider, "provider");
    assert.deepEqual({ ...handle.labels }, suite.labelsFor({ [GROUP_LABEL]: "lifecycle" }), "labels as launched");
    if (handle.createdAt !== undefined) {
      const created = Date.parse(handle.createdAt);
      assert.ok(Math.abs(created - Date.now()) < 3_600_000, `createdAt ${handle.createdAt} is not a recent instant`);
    }
    const copy = JSON.parse(JSON.stringify(handle)) as H;
    await runtime.writeFiles(copy, [{ path: "handle/through-copy.txt", content: "copy" }]);
    assert.equal(await readText(runtime, handle, "handle/through-copy.txt"), "copy", "a JSON copy reaches the sandbox");
  });

  group.check(
    "lifecycle.reattach",
    async () => {
      const handle = group.sandbox();
      await runtime.writeFiles(handle, [{ path: "reattach/original.txt", content: "from original" }]);
      const found = await runtime.getById!(handle.id);
      assert.ok(found !== undefined, "getById found the sandbox");
      assert.equal(found.id, handle.id);
      assert.equal(found.provider, runtime.provider);
      assert.deepEqual({ ...found.labels }, { ...handle.labels }, "labels survive reattach");
      const cat = await runtime.exec(found, { argv: ["cat", "reattach/original.txt"] });
      assert.equal(assertSucceeded(cat, "exec through a reattached handle").stdout, "from original");
      await runtime.writeFiles(found, [{ path: "reattach/reattached.txt", content: "from reattached" }]);
      assert.equal(await readText(runtime, handle, "reattach/reattached.txt"), "from reattached");
    },
    { unavailable: noReattach },
  );

  group.check(
    "lifecycle.reattach-new-instance",
    async () => {
      const handle = group.sandbox();
      await runtime.writeFiles(handle, [{ path: "reattach/for-new-instance.txt", content: "shared" }]);
      const other = await suite.reopen!();
      const found = await other.getById!(handle.id);
      assert.ok(found !== undefined, "a new runtime instance found the sandbox by id");
      assert.equal(await readText(other, found, "reattach/for-new-instance.txt"), "shared");
      const result = await other.exec(found, { argv: ["cat", "reattach/for-new-instance.txt"] });
      assert.equal(assertSucceeded(result, "exec from the new instance").stdout, "shared");
    },
    { unavailable: noReattach ?? (suite.reopen ? undefined : "the fixture has no reopen() for a second instance") },
  );

  group.check(
    "lifecycle.reattach-unknown",
    async () => {
      assert.equal(await runtime.getById!(suite.unknownSandboxId), undefined, "getById of an unknown id");
    },
    { unavailable: noReattach },
  );

  group.check("lifecycle.hostile-ids", async () => {
    const handle = group.sandbox();
    const missing = `sandport-conformance-${suite.token}`;
    const ids = ["..", ".", "/", "", "/etc", "a/b", `../${missing}`, `/tmp/${missing}`, "%2e%2e", `${handle.id}/..`];
    for (const id of ids) {
      const what = `an id of ${JSON.stringify(id)}`;
      if (noReattach === undefined) {
        // Resolving undefined and refusing the id are both fine; finding something is not.
        const found = await runtime.getById!(id).catch(async (error: unknown) => {
          await expectCode(() => Promise.reject(error), ["INVALID_REQUEST", "NOT_FOUND"], `getById, ${what}`);
          return undefined;
        });
        assert.equal(found, undefined, `getById found a sandbox for ${what}`);
      }
      const forged = { ...handle, id } as H;
      await expectCode(() => runtime.readFile(forged, "x.txt"), ["INVALID_REQUEST", "NOT_FOUND"], `readFile, ${what}`);
      if (id.includes(missing)) {
        // Only ids that name nothing real are destroyed: a runtime that follows them has nothing to delete.
        await runtime
          .destroy(forged)
          .catch((error: unknown) => expectCode(() => Promise.reject(error), "INVALID_REQUEST", `destroy, ${what}`));
      }
    }
    assertSucceeded(await runtime.exec(handle, { argv: ["true"] }), "the real sandbox still works");
  });

  group.check(
    "lifecycle.label-search",
    async () => {
      const first = group.sandbox();
      const other = await secondSandbox();
      const ids = async (labels: Record<string, string>) =>
        (await runtime.findByLabels!(labels)).map((found) => found.id).sort();
      assert.deepEqual(await ids({ [RUN_LABEL]: suite.runId, [GROUP_LABEL]: "lifecycle" }), [first.id]);
      assert.deepEqual(await ids({ [RUN_LABEL]: suite.runId, [GROUP_LABEL]: "lifecycle-second" }), [other.id]);
      const all = await runtime.findByLabels!({ [RUN_LABEL]: suite.runId });
      const allIds = all.map((found) => found.id);
      assert.ok(allIds.includes(first.id) && allIds.includes(other.id), `run label found ${allIds.join(", ")}`);
      for (const found of all) {
        assert.equal(found.labels[RUN_LABEL], suite.runId, "every match carries the searched label");
        assert.ok(!Object.keys(found.labels).some((key) => key.startsWith("sandport.")), "no reserved labels leak");
      }
      assert.deepEqual(await ids({ [RUN_LABEL]: `${suite.runId}-other` }), [], "an unused label value finds nothing");
      assert.deepEqual(await ids({ [RUN_LABEL]: suite.runId, [GROUP_LABEL]: "nobody" }), [], "all labels must match");
      const [match] = await runtime.findByLabels!({ [RUN_LABEL]: suite.runId, [GROUP_LABEL]: "lifecycle" });
      assertSucceeded(await runtime.exec(match!, { argv: ["true"] }), "exec through a found handle");
    },
    { unavailable: noSearch },
  );

  group.check("lifecycle.separate-workspaces", async () => {
    const first = group.sandbox();
    const other = await secondSandbox();
    await runtime.writeFiles(first, [{ path: "separate/only-in-first.txt", content: "first" }]);
    assert.equal(await fileExists(runtime, other, "separate/only-in-first.txt"), false, "readFile in the other");
    const probe = await runtime.exec(other, { shell: "test -e separate/only-in-first.txt" });
    assert.notEqual(probe.exitCode, 0, "a command in the other sandbox sees the first sandbox's file");
  });

  group.check("lifecycle.invalid-launch", async () => {
    const labels = { [GROUP_LABEL]: "lifecycle-refused" };
    const refused = async (spec: LaunchSpec, what: string) => {
      await expectCode(
        async () => {
          const handle = suite.track(await runtime.launch(suite.specFor({ labels, ...spec })));
          await suite.destroy(handle);
          return handle;
        },
        "INVALID_REQUEST",
        `launch with ${what}`,
      );
    };
    await refused({ env: { "BAD-NAME": "x" } }, "an invalid env name");
    await refused({ labels: { ...labels, [OWNER_LABEL]: "someone-else" } }, "a reserved sandport.* label");
    await refused({ labels: { ...labels, "bad key!": "x" } }, "an invalid label key");
    await refused({ lifetimeMs: -1 }, "a negative lifetimeMs");
    await refused({ launchKey: "has spaces" }, "a malformed launchKey");
    if (caps.labelSearch === true) {
      const created = await runtime.findByLabels!({ [RUN_LABEL]: suite.runId, ...labels });
      assert.deepEqual(created, [], "a refused launch created a sandbox");
    }
  });

  declareNetworkPolicyChecks(group);
  declareNetworkAllowChecks(group);
  declareSnapshotRefusalChecks(group);
  declareDestroyChecks(group, noReattach, noSearch);
  declareAbortedCallChecks(group);
  declareOptionalLifecycleChecks(group, noReattach);
}

/** Registers the checks of optional lifecycle members: `launchDetached`, `stop`/`start` (and what a stop keeps). */
function declareOptionalLifecycleChecks<H extends SandboxHandle>(
  group: CheckGroup<H>,
  noReattach: string | undefined,
): void {
  const { runtime, suite } = group;
  const caps = suite.capabilities;

  group.check(
    "lifecycle.detached-launch",
    async () => {
      const spec = suite.specFor({ labels: { [GROUP_LABEL]: "lifecycle-detached" } });
      const handle = suite.track(await runtime.launchDetached!(spec));
      assert.ok(typeof handle.id === "string" && handle.id.length > 0, "a detached launch returns an id");
      if (noReattach === undefined) {
        await pollUntil(
          () => runtime.getById!(handle.id),
          (found) => found !== undefined,
          { timeoutMs: suite.timeouts.hookMs, intervalMs: 500, what: "getById of a detached launch" },
        );
      }
      await suite.destroy(handle);
    },
    { unavailable: caps.detachedLaunch === true ? undefined : `detachedLaunch is ${caps.detachedLaunch}` },
  );

  group.check(
    "lifecycle.stop-start",
    async () => {
      const handle = await suite.launch({ labels: { [GROUP_LABEL]: "lifecycle-stop-start" } });
      try {
        await runtime.writeFiles(handle, [{ path: "kept.txt", content: "kept" }]);
        await runtime.stop!(handle);
        await runtime.start!(handle);
        assertSucceeded(await runtime.exec(handle, { argv: ["true"] }), "exec after stop and start");
        if (caps.filesystem === "persistent") {
          assert.equal(await readText(runtime, handle, "kept.txt"), "kept", "a persistent filesystem kept the file");
        }
      } finally {
        await suite.destroy(handle);
      }
    },
    // Exercised whenever stop/start exist, also while `lifecycle` is still `unknown` (awaiting live evidence).
    {
      unavailable:
        typeof runtime.stop === "function" && typeof runtime.start === "function"
          ? undefined
          : `lifecycle is ${caps.lifecycle}: the runtime has no stop/start`,
    },
  );
  declareStopKeepsChecks(group);
  declareForkChecks(group);
}
