// destroy, stop and start through the real @vercel/sandbox SDK (3.5 and 3.0) against the
// Vercel emulator: a delete verified by the list, foreign sandboxes left alone, sessions
// stopped and resumed, and why destroy never relies on the SDK's AsyncDisposable.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { assertCapabilitiesConsistent, OWNER_LABEL, resolveCapabilities } from "@sandport/core";
import { expectCode } from "@sandport/testkit/assertions";
import { Sandbox } from "@vercel/sandbox";
import { emulated, SDK_VERSIONS, type SdkVersion } from "../test/emulated.js";
import type { VercelHandle } from "./handle.js";

const LIST = "GET /v2/sandboxes";
const DELETE = "DELETE /v2/sandboxes/:name";
const GET = "GET /v2/sandboxes/:name";

for (const version of Object.keys(SDK_VERSIONS) as SdkVersion[]) {
  describe(`lifecycle with @vercel/sandbox ${version}`, async () => {
    const { emulator, runtime, runtimeWith } = await emulated({ owner: "lifecycle" }, { version });
    const stateOf = (name: string) => emulator.liveSandboxes().find((sandbox) => sandbox.id === name)?.state;

    test("destroy deletes, then proves absence with the list; destroying again resolves", async () => {
      const handle = await runtime.launch();
      emulator.resetRequests();
      await runtime.destroy(handle);
      assert.deepEqual(
        emulator.requests.map((request) => request.route),
        [DELETE, LIST],
        "one delete and one listing that no longer has the name",
      );
      assert.match(emulator.requests[0]?.path ?? "", version === "3.5" ? /deleteOrphanSnapshots=true/ : /./);
      assert.equal(stateOf(handle.id), undefined);
      await runtime.destroy(handle);
      await runtimeWith({}).destroy(handle);
      await expectCode(runtime.exec(handle, { argv: ["true"] }), "NOT_FOUND");
      await expectCode(runtime.readFile(handle, "a.txt"), "NOT_FOUND");
      await expectCode(runtime.stop(handle), "NOT_FOUND");
      await expectCode(runtime.start(handle), "NOT_FOUND");
    });

    test("a sandbox another instance launched is checked (list), fetched (get), deleted, verified", async () => {
      const handle = await runtime.launch();
      emulator.resetRequests();
      await runtimeWith({}).destroy(handle);
      assert.deepEqual(
        emulator.requests.map((request) => request.route),
        [LIST, GET, DELETE, LIST],
      );
      assert.ok(!emulator.requests[1]?.path.includes("resume"), "the get never resumes");
    });

    test("a destroy that cannot prove absence rejects DESTROY_UNVERIFIED and stays registered; again finishes it", async () => {
      const requests = answeredFetch(emulator.fetch);
      const tracked = runtimeWith({ fetch: requests.fetch });
      const handle = await tracked.launch();
      emulator.injectFault({ route: LIST, fault: { kind: "status", status: 500 }, times: 1_000 });
      // Room for the delete itself, which waits for the backend's destroy (seconds on a loaded machine); the rest
      // of the deadline is the verification window the faults use up.
      const error = await expectCode(tracked.destroy(handle, { timeoutMs: 4_000 }), "DESTROY_UNVERIFIED");
      assert.equal(error.retryable, true);
      assert.equal(error.details.sandboxId, handle.id);
      assert.ok(emulator.countRequests(LIST) >= 2, "the check was repeated until the deadline");
      // The check cut off at the deadline may have sent its request already: once every request the runtime
      // sent has its answer, the emulator has logged it, so the log below is the second destroy's alone.
      await requests.allAnswered();
      emulator.clearFaults();
      emulator.resetRequests();
      await tracked.destroy(handle);
      assert.deepEqual(
        emulator.requests.map((request) => `${request.route} ${request.status}`),
        [`${GET} 404`],
        "no ownership lookup again (the handle was still known): the sandbox fetched by name is gone",
      );
    });

    test("destroy maps a failed delete (retryable) and never touches a foreign sandbox", async () => {
      const handle = await runtime.launch();
      emulator.injectFault({ route: DELETE, fault: { kind: "status", status: 503 }, times: 3 });
      const error = await expectCode(runtime.destroy(handle), "PROVIDER_UNAVAILABLE");
      assert.equal(error.retryable, true);
      await runtime.destroy(handle);
      const foreign = await emulator.seedForeignSandbox({ [OWNER_LABEL]: "lifecycle" });
      const untagged = (await Sandbox.create({ ...emulator.sdkOptions, name: "sandport-lifecycle-untagged" })).name;
      emulator.resetRequests();
      for (const name of [foreign]) {
        const forged: VercelHandle = { id: name, provider: "vercel", labels: {} };
        await expectCode(runtime.destroy(forged), "FOREIGN_SANDBOX");
        await expectCode(runtime.stop(forged), "FOREIGN_SANDBOX");
        await expectCode(runtime.start(forged), "FOREIGN_SANDBOX");
        await expectCode(runtime.exec(forged, { argv: ["true"] }), "FOREIGN_SANDBOX");
      }
      assert.equal(emulator.countRequests(), 0, "a name outside the prefix is refused without a request");
      const inside: VercelHandle = { id: untagged, provider: "vercel", labels: {} };
      await expectCode(runtime.destroy(inside), "FOREIGN_SANDBOX");
      await expectCode(runtime.start(inside), "FOREIGN_SANDBOX");
      assert.equal(emulator.countRequests(/DELETE|cmd|stop/), 0);
      assert.equal(stateOf(foreign), "running");
      assert.equal(stateOf(untagged), "running", "the untagged sandbox survives");
      await (await Sandbox.get({ ...emulator.sdkOptions, name: untagged })).delete();
      emulator.resetRequests();
      await expectCode(runtime.destroy({ id: "x", provider: "local", labels: {} } as never), "INVALID_REQUEST");
      await expectCode(runtime.destroy({ id: "../x", provider: "vercel", labels: {} }), "INVALID_REQUEST");
      await expectCode(runtime.destroy(null as never), "INVALID_REQUEST");
      assert.equal(emulator.countRequests(), 0);
    });

    test("stop ends the session and keeps the files; start resumes it; any call on a stopped sandbox resumes it", async () => {
      const handle = await runtime.launch();
      await runtime.writeFiles(handle, [{ path: "kept.txt", content: "kept" }]);
      await runtime.stop(handle);
      assert.equal(stateOf(handle.id), "stopped");
      await runtime.stop(handle);
      await runtimeWith({}).start(handle);
      assert.equal(stateOf(handle.id), "running");
      assert.equal((await runtime.exec(handle, { argv: ["cat", "kept.txt"] })).stdout, "kept");
      await runtime.stop(handle);
      assert.equal((await runtime.exec(handle, { argv: ["echo", "resumed"] })).stdout, "resumed\n", "use resumes");
      await runtime.destroy(handle);
    });

    test("the SDK's own AsyncDisposable only stops a sandbox: destroy deletes it", async () => {
      const name = "sandport-lifecycle-disposed";
      {
        await using sandbox = await Sandbox.create({
          ...emulator.sdkOptions,
          name,
          tags: { [OWNER_LABEL]: "lifecycle" },
        });
        assert.equal(sandbox.status, "running");
      }
      assert.equal(stateOf(name), "stopped", "disposed: stopped, not deleted");
      await runtime.destroy({ id: name, provider: "vercel", labels: {} });
      assert.equal(stateOf(name), undefined);
    });

    test("declared capabilities resolve: ports and async exec yes, interactive unsupported, fileOps not exposed", () => {
      assertCapabilitiesConsistent(runtime);
      const resolved = resolveCapabilities(runtime);
      assert.deepEqual(
        [resolved.reattach, resolved.labelSearch, resolved.asyncExec, resolved.streaming, resolved.ports],
        [true, true, true, true, true],
      );
      assert.deepEqual(
        [resolved.interactive, resolved.fileOps, resolved.detachedLaunch, resolved.pty, resolved.binaryOutput],
        ["unsupported", "not-exposed", "unknown", "not-exposed", "unsupported"],
      );
      assert.deepEqual(
        [resolved.verifiedCleanup, resolved.lifecycle, resolved.neverIdle, resolved.warmLease],
        [true, "unknown", "unsupported", "unknown"],
      );
      assert.deepEqual(
        [resolved.outputStreams, resolved.lifetime, resolved.isolation, resolved.filesystem],
        ["separate", "deadline", "microvm", "unknown"],
      );
    });
  });
}

/**
 * A fetch that sends every request through to its answer, whatever the
 * caller's signal does (the caller still sees its abort at once), and says
 * when every request sent so far has been answered.
 */
function answeredFetch(base: typeof globalThis.fetch) {
  const pending = new Set<Promise<unknown>>();
  const fetch: typeof globalThis.fetch = (input, init) => {
    const { signal, ...rest } = init ?? {};
    const answered = base(input, rest);
    const settled = answered.then(
      async (response) => {
        if (signal?.aborted) await response.body?.cancel();
      },
      () => undefined,
    );
    pending.add(settled);
    void settled.finally(() => pending.delete(settled));
    if (!signal) return answered;
    return new Promise<Response>((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      if (signal.aborted) return onAbort();
      signal.addEventListener("abort", onAbort, { once: true });
      answered.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
    });
  };
  return { fetch, allAnswered: async () => void (await Promise.all(pending)) };
}
