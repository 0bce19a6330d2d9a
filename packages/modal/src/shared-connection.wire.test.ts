// The soak's silent Modal leak, replayed through the real Modal SDK and the emulator: a destroy whose
// `SandboxWaitV2` poll is held past its deadline gives that call up while the next launch's create
// is in flight on the same HTTP/2 connection. Giving up one call must not cut the others: the launch
// succeeds, and nothing of ours is left once both sandboxes are destroyed.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { waitFor } from "@sandport/testkit/assertions";
import { emulated } from "../test/emulated.js";

const CREATE = "rpc modal.client.ModalClient/SandboxCreateV2";
const WAIT = "rpc modal.client.ModalClient/SandboxWaitV2";

const { emulator, runtime } = await emulated({ owner: "shared-connection-tests" });
const requests = (route: string) => emulator.requests.filter((request) => request.route === route);

describe("ModalRuntime: one call given up on a shared connection (real modal SDK → emulator)", () => {
  test("a destroy's poll given up past its deadline does not cut a create in flight on the same connection", async () => {
    const first = await runtime.launch();
    emulator.resetRequests();
    emulator.injectFault({ route: WAIT, fault: { kind: "latency", ms: 60_000 } });
    const destroying = runtime.destroy(first, { timeoutMs: 1_000 });
    await waitFor(() => requests(WAIT).length > 0 || undefined, { what: "the destroy's poll to be held" });
    // The create is held longer than the destroy may last: it is in flight when the poll is given up.
    emulator.injectFault({ route: CREATE, fault: { kind: "latency", ms: 2_500 } });
    const launching = runtime.launch();
    await waitFor(() => requests(CREATE).length > 0 || undefined, { what: "the create to be sent" });
    await assert.rejects(destroying, (error: { code?: string }) =>
      ["DESTROY_UNVERIFIED", "DEADLINE_EXCEEDED"].includes(error.code ?? ""),
    );
    await waitFor(() => requests(WAIT)[0]?.endedAt !== undefined || undefined, { what: "the poll to be given up" });
    assert.equal(requests(CREATE)[0]?.endedAt, undefined, "the create is still in flight when the poll ends");
    const second = await launching;
    assert.deepEqual(
      requests(CREATE).map((request) => request.status),
      [200],
      "one create, answered",
    );
    emulator.clearFaults();
    await runtime.destroy(second);
    await runtime.destroy(first);
    assert.deepEqual(await runtime.settle(), []);
    assert.deepEqual(
      emulator.liveSandboxes().filter((sandbox) => !sandbox.foreign && sandbox.state !== "destroying"),
      [],
    );
  });
});
