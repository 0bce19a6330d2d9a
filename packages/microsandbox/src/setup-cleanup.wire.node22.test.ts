// A launch whose sandbox was made but whose create answer was lost, through the real microsandbox SDK
// and the emulator, under an orchestrator (a launch has no request after its create that could fail):
// the orchestrator launches again, and the first sandbox's cleanup delete is refused (429). The workload
// waits for that cleanup, which repeats the delete after the refusal's Retry-After: when the
// workload returns the first sandbox is gone, or its launch key is on the workload's result.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { LAUNCH_KEY_LABEL, SandboxOrchestrator } from "@sandport/core";
import { emulated } from "../test/emulated.js";

const DELETE = "DELETE /v1/sandboxes/by-name/:name";
const CREATE = "POST /v1/sandboxes";

const { emulator, runtime, runtimeWith } = await emulated({ owner: "setup-cleanup-tests" });

const workload = { launch: {}, steps: [{ argv: ["echo", "hi"] }] };
const statuses = (route: string) => emulator.requests.filter((request) => request.route === route).map((r) => r.status);
const ours = () => emulator.liveSandboxes().filter((sandbox) => !sandbox.foreign);

describe("a launch whose create answer was lost and whose cleanup delete was refused (real microsandbox SDK → emulator)", () => {
  test("the delete is repeated after Retry-After: the first sandbox is gone when the workload returns", async () => {
    emulator.resetRequests();
    emulator.injectFault({ route: CREATE, fault: { kind: "lost-response" } });
    emulator.injectFault({ route: DELETE, fault: { kind: "status", status: 429, retryAfterSeconds: 1 } });
    const result = await new SandboxOrchestrator(runtime).run(workload);
    assert.equal(result.ok, true, "the second launch ran the workload");
    assert.deepEqual(result.possibleLeaks, []);
    assert.equal(statuses(CREATE).length, 2, "two launches");
    const deletes = statuses(DELETE);
    assert.equal(deletes[0], 429, "the cleanup's first delete was refused");
    assert.equal(deletes.length, 3, "the refused delete was repeated, and the workload's sandbox deleted");
    assert.equal(deletes.slice(1).includes(429), false);
    assert.deepEqual(ours(), [], "nothing of ours is alive when the workload returns");
    assert.deepEqual(await runtime.settle(), []);
  });

  test("a delete refused past the cleanup budget: the first launch's key is on the successful workload's result", async () => {
    const shortCleanup = runtimeWith({ orphanCleanupMs: 1_500 });
    emulator.injectFault({ route: CREATE, fault: { kind: "lost-response" } });
    emulator.injectFault({ route: DELETE, fault: { kind: "status", status: 429 }, times: 100 });
    // The workload keeps its sandbox, whose delete would be refused too.
    const result = await new SandboxOrchestrator(shortCleanup).run({ ...workload, teardown: "keep" });
    assert.equal(result.ok, true);
    const [leak] = result.possibleLeaks;
    assert.equal(result.possibleLeaks.length, 1);
    // Its create's outcome was unknown: the cleanup, refused each delete, ran out of budget searching.
    assert.equal(leak?.error.code, "DEADLINE_EXCEEDED");
    assert.equal(leak?.error.details.possibleLeak, true);
    const left = ours().map((sandbox) => sandbox.metadata[LAUNCH_KEY_LABEL]);
    assert.ok(left.includes(leak?.launchKey), "the sandbox left alive is the one the result names");
    emulator.clearFaults();
    const failures = await shortCleanup.settle();
    assert.equal(failures[0], leak?.error, "settle() reports the same failure");
    const [orphan] = await shortCleanup.findByLabels({ [LAUNCH_KEY_LABEL]: leak?.launchKey as string });
    assert.ok(orphan && result.handle);
    await shortCleanup.destroy(orphan);
    await shortCleanup.destroy(result.handle);
    assert.deepEqual(ours(), []);
  });
});
