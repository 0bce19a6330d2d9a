// Background requests through the real freestyle SDK: work that outlives the
// threshold is answered 202 and polled every 2 s by the SDK itself.

import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import { type CreateVmOptions, Freestyle, FreestyleApiError } from "freestyle";
import { waitFor } from "../../assertions/index.js";
import { type FreestyleEmulator, startFreestyleEmulator } from "./emulator.js";

const egress: CreateVmOptions["firewall"] = {
  rules: [{ action: "allow", source: {}, destination: { public: true } }],
};

describe("Freestyle emulator background requests", () => {
  let emulator: FreestyleEmulator;
  let freestyle: Freestyle;

  before(async () => {
    emulator = await startFreestyleEmulator({ backgroundAfterMs: 300, maxStoredResultBytes: 4096 });
    freestyle = new Freestyle(emulator.sdkOptions);
  });

  after(() => emulator.stop());

  afterEach(async () => {
    emulator.clearFaults();
    for (const { id } of emulator.liveSandboxes()) await freestyle.vms.delete(id).catch(() => undefined);
  });

  const statuses = () => emulator.requests.map((request) => `${request.route} ${request.status}`);

  it("an exec that outlives the threshold is answered 202, and the SDK polls its stored result", async () => {
    const { vm } = await freestyle.vms.create({ firewall: egress });
    emulator.resetRequests();
    const started = Date.now();
    const result = await vm.exec({ command: "sleep 0.6; echo done; echo warn >&2; exit 4", timeoutMs: 10_000 });
    assert.deepEqual(result, { stdout: "done\n", stderr: "warn\n", statusCode: 4 });
    assert.ok(Date.now() - started >= 2_000, "the SDK waits 2 s before its first poll");
    const [accepted, ...polls] = statuses();
    assert.equal(accepted, "POST /v5/vms/:id/exec-await 202");
    // Normally one poll; a loaded machine may need another while the command still runs.
    assert.equal(polls.at(-1), "GET /v5/background-requests/:requestId 200");
    assert.ok(polls.slice(0, -1).every((entry) => entry === "GET /v5/background-requests/:requestId 202"));
    const poll = emulator.requests[1]!;
    assert.equal(poll.headers.authorization, `Bearer ${emulator.apiKey}`, "polls are authenticated");
    assert.match(poll.path, /^\/v5\/background-requests\/br_[a-z0-9]{20}$/);

    emulator.resetRequests();
    assert.equal((await vm.exec("echo quick")).stdout, "quick\n");
    assert.deepEqual(statuses(), ["POST /v5/vms/:id/exec-await 200"], "work done in time is answered inline");
  });

  it("the wire: 202 with the request id in header and body, 202 while pending, then the stored answer", async () => {
    const { vmId } = await freestyle.vms.create({ firewall: egress });
    const headers = {
      authorization: `Bearer ${emulator.apiKey}`,
      "content-type": "application/json",
      "x-freestyle-background-after-secs": "5",
    };
    const accepted = await fetch(`${emulator.baseUrl}/v5/vms/${vmId}/exec-await`, {
      method: "POST",
      headers,
      body: JSON.stringify({ command: "sleep 0.8; echo finished > marker.txt; echo out" }),
    });
    assert.equal(accepted.status, 202);
    const requestId = accepted.headers.get("x-freestyle-background-request-id");
    assert.deepEqual(await accepted.json(), { requestId });
    const poll = () => fetch(`${emulator.baseUrl}/v5/background-requests/${requestId}`, { headers });
    const pending = await poll();
    assert.equal(pending.status, 202);
    assert.equal(pending.headers.get("x-freestyle-background-request-id"), requestId);
    await pending.body?.cancel();
    const done = await waitFor(
      async () => {
        const answer = await poll();
        if (answer.status !== 202) return answer;
        await answer.body?.cancel();
        return undefined;
      },
      { intervalMs: 100, timeoutMs: 10_000, what: "the background request to finish" },
    );
    assert.equal(done.status, 200);
    assert.equal(done.headers.get("x-freestyle-background-request-id"), requestId);
    assert.deepEqual(await done.json(), { stdout: "out\n", stderr: "", statusCode: 0 });
    assert.equal(
      await freestyle.vms.ref(vmId).fs.readTextFile(`${emulator.workspaceDirectory}/marker.txt`),
      "finished\n",
    );
    const again = await poll();
    assert.equal(again.status, 200, "a finished answer stays available");
    await again.body?.cancel();

    const unknown = await fetch(`${emulator.baseUrl}/v5/background-requests/br_nothing`, { headers });
    assert.equal(unknown.status, 404);
    assert.equal(((await unknown.json()) as { code: string }).code, "BACKGROUND_REQUEST_NOT_FOUND");
    const anonymous = await fetch(`${emulator.baseUrl}/v5/background-requests/${requestId}`);
    assert.equal(anonymous.status, 401);
  });

  it("a stored error reaches the SDK as FreestyleApiError; an answer too large to store is one", async () => {
    const { vm } = await freestyle.vms.create({ firewall: egress });
    const error = await vm.exec({ command: "sleep 0.5; head -c 5000 /dev/zero | tr '\\0' x" }).then(
      () => assert.fail("the exec must fail"),
      (caught: unknown) => caught,
    );
    assert.ok(error instanceof FreestyleApiError);
    assert.deepEqual([error.status, error.code], [507, "BACKGROUND_RESULT_UNSTORABLE"]);
  });

  it("a transient failure of the polling hop (503 without the request id) is retried by the SDK", async () => {
    const { vm } = await freestyle.vms.create({ firewall: egress });
    emulator.resetRequests();
    emulator.injectFault({ route: "GET /v5/background-requests/:requestId", fault: { kind: "status", status: 503 } });
    const result = await vm.exec("sleep 0.5; echo survived");
    assert.equal(result.stdout, "survived\n");
    assert.deepEqual(statuses(), [
      "POST /v5/vms/:id/exec-await 202",
      "GET /v5/background-requests/:requestId 503",
      "GET /v5/background-requests/:requestId 200",
    ]);
  });

  it("without the option the client's own threshold applies; without the header nothing goes to the background", async () => {
    const honest = await startFreestyleEmulator();
    try {
      const client = new Freestyle(honest.sdkOptions);
      const { vmId } = await client.vms.create({ firewall: egress });
      const exec = (headers: Record<string, string>) =>
        fetch(`${honest.baseUrl}/v5/vms/${vmId}/exec-await`, {
          method: "POST",
          headers: { authorization: `Bearer ${honest.apiKey}`, "content-type": "application/json", ...headers },
          body: JSON.stringify({ command: "sleep 0.3; echo slow" }),
        });
      const immediate = await exec({ "x-freestyle-background-after-secs": "0" });
      assert.equal(immediate.status, 202);
      await immediate.body?.cancel();
      const inline = await exec({});
      assert.equal(inline.status, 200);
      assert.equal(((await inline.json()) as { stdout: string }).stdout, "slow\n");
      assert.equal((await client.vms.ref(vmId).exec("sleep 0.3; echo sdk")).stdout, "sdk\n");
      assert.deepEqual(
        honest.requests.map((request) => request.status),
        [200, 202, 200, 200],
        "the SDK's 5 s threshold keeps a 0.3 s exec inline",
      );
    } finally {
      await honest.stop();
    }
  });
});
