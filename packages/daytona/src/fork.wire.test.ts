// fork through the real Daytona SDK (newest and oldest) against the Daytona emulator: Daytona's
// own fork copies the files, then one label update gives the fork the caller's labels and a
// launch key of its own; what it costs is counted; an absent, foreign or unforkable source is
// refused before the fork request; a fork that fails after it (its label update, its lost
// answer, the caller giving up) is deleted, never leaked.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { LAUNCH_KEY_LABEL, OWNER_LABEL } from "@sandport/core";
import { expectCode, waitFor } from "@sandport/testkit/assertions";
import { namespacesSkipReason } from "@sandport/testkit/fakes";
import { emulated, OLDEST, SDKS } from "../test/emulated.js";
import type { DaytonaHandle } from "./handle.js";

const OWNER = "fork-tests";
const FORK = "POST /api/sandbox/:idOrName/fork";
const LABELS = "PUT /api/sandbox/:id/labels";
const unisolated = await namespacesSkipReason();

for (const sdk of SDKS) {
  describe(`fork with ${sdk.label}`, async () => {
    const { emulator, runtime } = await emulated({ owner: OWNER }, sdk, { sandboxClass: "linux-vm" });

    const readText = async (handle: DaytonaHandle, path: string) =>
      new TextDecoder().decode(await runtime.readFile(handle, path));
    const stored = (id: string) => emulator.liveSandboxes().find((sandbox) => sandbox.id === id)?.metadata ?? {};
    /** Our sandboxes that are not on their way out. */
    const ours = () =>
      emulator
        .liveSandboxes()
        .filter((sandbox) => !sandbox.foreign && sandbox.state !== "destroying")
        .map((sandbox) => sandbox.id)
        .sort();

    test("a fork has the source's files and labels, a launch key of its own, and costs one fork and one label update", async () => {
      const source = await runtime.launch({ labels: { job: "42" } });
      const forks: DaytonaHandle[] = [];
      try {
        await runtime.writeFiles(source, [{ path: "state.txt", content: "before" }]);
        emulator.resetRequests();
        const forked = await runtime.fork(source);
        forks.push(forked);
        assert.deepEqual(
          [emulator.countRequests(FORK), emulator.countRequests(LABELS), emulator.countRequests("POST /api/sandbox")],
          [1, 1, 0],
          "one fork request, one label update, no create",
        );
        assert.notEqual(forked.id, source.id);
        assert.deepEqual({ ...forked.labels }, { job: "42" });
        const forkLabels = stored(forked.id);
        assert.equal(forkLabels[OWNER_LABEL], OWNER);
        assert.equal(forkLabels.job, "42");
        assert.ok(forkLabels[LAUNCH_KEY_LABEL], "the fork has a launch key");
        assert.notEqual(forkLabels[LAUNCH_KEY_LABEL], stored(source.id)[LAUNCH_KEY_LABEL], "not the source's");
        emulator.resetRequests();
        assert.equal(await readText(forked, "state.txt"), "before");
        assert.deepEqual(
          emulator.requests.map((request) => request.route),
          ["POST /toolbox/:id/process/execute"],
          "a fork holds what the source's commands left: its reads are guarded against symlinks (one guarded read command)",
        );
        await runtime.writeFiles(source, [{ path: "state.txt", content: "in the source" }]);
        await runtime.writeFiles(forked, [{ path: "state.txt", content: "in the fork" }]);
        assert.equal(await readText(source, "state.txt"), "in the source");
        assert.equal(await readText(forked, "state.txt"), "in the fork");
        const found = await runtime.findByLabels({ job: "42" });
        assert.deepEqual(found.map((handle) => handle.id).sort(), [source.id, forked.id].sort());
        assert.deepEqual((await runtime.getById(forked.id))?.labels, { job: "42" });

        const relabelled = await runtime.fork(source, { labels: { job: "43" } });
        forks.push(relabelled);
        assert.deepEqual({ ...relabelled.labels }, { job: "43" });
        assert.equal(stored(relabelled.id).job, "43", "labels given to fork replace the source's");
        assert.equal(await readText(relabelled, "state.txt"), "in the source");
        assert.deepEqual(
          (await runtime.findByLabels({ job: "43" })).map((handle) => handle.id),
          [relabelled.id],
        );
      } finally {
        for (const handle of forks) await runtime.destroy(handle);
        await runtime.destroy(source);
      }
    });

    test("bad options, a destroyed source and a foreign one are refused before the fork request", async () => {
      const source = await runtime.launch();
      const foreign = await emulator.seedForeignSandbox({ [OWNER_LABEL]: "someone-else" });
      try {
        emulator.resetRequests();
        await expectCode(runtime.fork(source, { labels: { [OWNER_LABEL]: "x" } }), "INVALID_REQUEST");
        await expectCode(runtime.fork(source, { labels: { "code-toolbox-language": "go" } }), "INVALID_REQUEST");
        await expectCode(runtime.fork(source, { name: "x" } as never), "INVALID_REQUEST");
        assert.equal(emulator.countRequests(), 0, "no request was sent");
        const before = ours();
        await expectCode(runtime.fork({ id: foreign, provider: "daytona", labels: {} }), "FOREIGN_SANDBOX");
        assert.deepEqual(
          emulator.requests.map((request) => request.route),
          ["GET /api/sandbox/:id"],
          "only the source was read",
        );
        assert.deepEqual(stored(foreign), { [OWNER_LABEL]: "someone-else" }, "the foreign sandbox is untouched");
        await runtime.destroy(source);
        emulator.resetRequests();
        await expectCode(runtime.fork(source), "NOT_FOUND");
        assert.equal(emulator.countRequests(FORK), 0);
        assert.deepEqual(
          ours(),
          before.filter((id) => id !== source.id),
          "nothing was created",
        );
      } finally {
        await runtime.destroy(source);
      }
    });

    test("a stopped source is refused UNSUPPORTED before the fork request", async () => {
      const source = await runtime.launch();
      try {
        await runtime.stop(source);
        emulator.resetRequests();
        await expectCode(runtime.fork(source), "UNSUPPORTED");
        assert.equal(emulator.countRequests(FORK), 0);
      } finally {
        await runtime.destroy(source);
      }
    });

    test("a source with a domainAllowList, which Daytona's fork does not keep, is refused UNSUPPORTED before the fork request", {
      skip:
        sdk === OLDEST
          ? "@daytonaio/sdk 0.180 does not send domainAllowList"
          : unisolated === undefined
            ? undefined
            : `${unisolated} (the emulator enforces an allow list with bubblewrap)`,
    }, async () => {
      const source = await runtime.launch({ network: { allow: ["example.com"] } });
      try {
        emulator.resetRequests();
        const refused = await expectCode(runtime.fork(source), "UNSUPPORTED");
        assert.match(refused.message, /domainAllowList/);
        assert.equal(emulator.countRequests(FORK), 0);
      } finally {
        await runtime.destroy(source);
      }
    });

    test("a fork Daytona refuses with 422 is UNSUPPORTED, and nothing is looked for or deleted", async () => {
      const source = await runtime.launch();
      try {
        emulator.resetRequests();
        emulator.injectFault({ route: FORK, fault: { kind: "status", status: 422 } });
        const refused = await expectCode(runtime.fork(source), "UNSUPPORTED");
        assert.equal(refused.details.sandboxId, source.id);
        assert.deepEqual(await runtime.settle(), []);
        assert.deepEqual(
          emulator.requests.map((request) => request.route),
          ["GET /api/sandbox/:id", FORK],
          "the source read, the fork refused, and nothing looked up or deleted after",
        );
      } finally {
        await runtime.destroy(source);
      }
    });

    test("a failed label update deletes the fork: nothing of ours is left but the source", async () => {
      const source = await runtime.launch();
      try {
        emulator.resetRequests();
        emulator.injectFault({ route: LABELS, fault: { kind: "status", status: 500 }, times: 50 });
        await expectCode(runtime.fork(source), "PROVIDER_UNAVAILABLE");
        emulator.clearFaults();
        assert.equal(emulator.countRequests(FORK), 1, "the fork was made");
        assert.deepEqual(await runtime.settle(), [], "its deletion did not fail");
        assert.deepEqual(ours(), [source.id], "the fork is deleted");
      } finally {
        await runtime.destroy(source);
      }
    });

    test("a fork the caller gave up on once it existed is deleted", async () => {
      const source = await runtime.launch();
      try {
        // The label update is held back, so the fork cannot finish before the caller gives up.
        emulator.injectFault({ route: LABELS, fault: { kind: "latency", ms: 5_000 } });
        const controller = new AbortController();
        const forking = runtime.fork(source, { signal: controller.signal });
        await waitFor(() => ours().length === 2, { timeoutMs: 10_000, what: "the fork to exist" });
        controller.abort();
        await expectCode(forking, "ABORTED");
        assert.deepEqual(await runtime.settle(), [], "its deletion did not fail");
        assert.deepEqual(ours(), [source.id], "the fork is deleted");
      } finally {
        await runtime.destroy(source);
      }
    });

    test("a fork whose answer is lost is found by its name and deleted", async () => {
      const source = await runtime.launch();
      try {
        emulator.resetRequests();
        emulator.injectFault({ route: FORK, fault: { kind: "drop-mid-stream" } });
        await expectCode(runtime.fork(source), "PROVIDER_UNAVAILABLE");
        assert.deepEqual(await runtime.settle(), [], "its deletion did not fail");
        assert.equal(emulator.countRequests(LABELS), 0, "never relabelled");
        assert.ok(emulator.countRequests("DELETE /api/sandbox/:id") >= 1, "the fork was deleted");
        assert.deepEqual(ours(), [source.id], "the fork is deleted");
      } finally {
        await runtime.destroy(source);
      }
    });
  });

  describe(`fork of a container sandbox with ${sdk.label}`, async () => {
    const { emulator, runtime } = await emulated({ owner: OWNER }, sdk);

    test("is refused UNSUPPORTED before the fork request: Daytona forks VM sandboxes only", async () => {
      const source = await runtime.launch();
      try {
        emulator.resetRequests();
        const refused = await expectCode(runtime.fork(source), "UNSUPPORTED");
        assert.match(refused.message, /container/);
        assert.equal(emulator.countRequests(FORK), 0);
      } finally {
        await runtime.destroy(source);
      }
    });
  });
}
