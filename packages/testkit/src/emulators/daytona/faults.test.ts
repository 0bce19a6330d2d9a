// Fault injection driven through the real Daytona SDKs (0.218 and 0.180): what
// each fault looks like to the SDK, and the requests it made.

import assert from "node:assert/strict";
import { after, afterEach, before, beforeEach, describe, it } from "node:test";
import { waitFor } from "../../assertions/index.js";
import { deleteAll, gone, openClient } from "./client.fixture.js";
import { type DaytonaEmulator, startDaytonaEmulator } from "./emulator.js";
import { DAYTONA_SDKS, type DaytonaClient } from "./sdk.fixture.js";

/** The fields every Daytona SDK error carries. */
interface SdkErrorFields {
  readonly statusCode?: number;
  readonly headers?: Record<string, string>;
  readonly source?: string;
}

function fieldsOf(error: unknown): SdkErrorFields {
  return error as SdkErrorFields;
}

for (const sdk of DAYTONA_SDKS) {
  const { DaytonaConnectionError, DaytonaError, DaytonaRateLimitError, DaytonaTimeoutError } = sdk.sdk;
  /** 0.205+ replays idempotent requests after a connection reset; 0.180 does not retry at all. */
  const retriesResets = sdk.eventStream;

  describe(`Daytona emulator faults with ${sdk.label}`, () => {
    let emulator: DaytonaEmulator;
    let daytona: DaytonaClient;

    before(async () => {
      emulator = await startDaytonaEmulator();
      daytona = openClient(sdk, emulator);
    });

    after(async () => {
      await daytona[Symbol.asyncDispose]();
      await emulator.stop();
    });

    beforeEach(() => {
      emulator.clearFaults();
      emulator.resetRequests();
    });

    afterEach(async () => {
      emulator.clearFaults();
      await deleteAll(emulator);
    });

    const statuses = (route: string) =>
      emulator.requests.filter((request) => request.route === route).map((request) => request.status);
    const failureOf = (promise: Promise<unknown>) =>
      promise.then(
        () => assert.fail("the call must fail"),
        (error: unknown) => error,
      );

    it("500 and 429 on create surface as the SDK's errors, are not retried, and create nothing", async () => {
      emulator.injectFault({ route: "POST /api/sandbox", fault: { kind: "status", status: 500 } });
      const internal = await failureOf(daytona.create());
      assert.ok(internal instanceof DaytonaError);
      assert.equal(fieldsOf(internal).statusCode, 500);
      emulator.injectFault({
        route: "POST /api/sandbox",
        fault: { kind: "status", status: 429, retryAfterSeconds: 1 },
      });
      const limited = await failureOf(daytona.create());
      assert.ok(limited instanceof DaytonaRateLimitError);
      assert.equal(fieldsOf(limited).headers?.["retry-after"], "1");
      assert.deepEqual(statuses("POST /api/sandbox"), [500, 429]);
      assert.deepEqual(emulator.liveSandboxes(), []);
    });

    it(
      retriesResets
        ? "a dropped connection is replayed for an idempotent GET but not for create"
        : "a dropped connection fails the call at once, GET or create",
      async () => {
        const sandbox = await daytona.create();
        emulator.resetRequests();
        emulator.injectFault({ route: "GET /api/sandbox/:id", fault: { kind: "drop" } });
        if (retriesResets) {
          assert.equal((await daytona.get(sandbox.id)).id, sandbox.id);
          assert.deepEqual(statuses("GET /api/sandbox/:id"), [0, 200]);
        } else {
          assert.ok((await failureOf(daytona.get(sandbox.id))) instanceof DaytonaConnectionError);
          assert.deepEqual(statuses("GET /api/sandbox/:id"), [0]);
        }
        emulator.injectFault({ route: "POST /api/sandbox", fault: { kind: "drop" } });
        assert.ok((await failureOf(daytona.create())) instanceof DaytonaConnectionError);
        assert.deepEqual(statuses("POST /api/sandbox"), [0]);
        assert.deepEqual(
          emulator.liveSandboxes().map((entry) => entry.id),
          [sandbox.id],
        );
      },
    );

    it("a lost create response leaves a sandbox the caller never heard of, found again by its labels", async () => {
      emulator.injectFault({ route: "POST /api/sandbox", fault: { kind: "lost-response" } });
      await assert.rejects(daytona.create({ labels: { "launch-key": "k1" } }), DaytonaConnectionError);
      assert.deepEqual(statuses("POST /api/sandbox"), [0]);
      const live = emulator.liveSandboxes();
      assert.equal(live.length, 1);
      const found: string[] = [];
      for await (const item of daytona.list({ labels: { "launch-key": "k1" } })) found.push(item.id);
      assert.deepEqual(found, [live[0]?.id]);
    });

    it("5xx and a lost response on delete: the first keeps the sandbox, the second deletes it unseen", async () => {
      const sandbox = await daytona.create();
      emulator.injectFault({ route: "DELETE /api/sandbox/:id", fault: { kind: "status", status: 503 } });
      assert.equal(fieldsOf(await failureOf(sandbox.delete())).statusCode, 503);
      assert.equal(emulator.liveSandboxes().length, 1);
      emulator.injectFault({ route: "DELETE /api/sandbox/:id", fault: { kind: "lost-response" } });
      const lost = await failureOf(sandbox.delete());
      await gone(emulator, sandbox.id);
      const deletes = statuses("DELETE /api/sandbox/:id");
      if (retriesResets) {
        // The replay meets a sandbox already being destroyed (400) or gone (404).
        assert.equal(deletes.length, 3);
        assert.ok([400, 404].includes(deletes[2]!));
        assert.equal(fieldsOf(lost).statusCode, deletes[2]);
      } else {
        assert.ok(lost instanceof DaytonaConnectionError);
        assert.deepEqual(deletes, [503, 0]);
      }
    });

    it("latency delays toolbox calls; 503 from the proxy is the SDK's error; faults match patterns `times` times", async () => {
      const sandbox = await daytona.create();
      emulator.injectFault({ route: /^POST \/toolbox\/:id\/process\//, fault: { kind: "latency", ms: 400 }, times: 2 });
      const started = Date.now();
      await sandbox.process.executeCommand("true");
      await sandbox.process.executeCommand("true");
      assert.ok(Date.now() - started >= 780);
      const quick = Date.now();
      await sandbox.process.executeCommand("true");
      assert.ok(Date.now() - quick < 350, "the rule is spent after two uses");
      emulator.injectFault({ route: "POST /toolbox/:id/process/execute", fault: { kind: "status", status: 503 } });
      const unavailable = await failureOf(sandbox.process.executeCommand("true"));
      assert.equal(fieldsOf(unavailable).statusCode, 503);
      if (sdk.eventStream) assert.equal(fieldsOf(unavailable).source, "DAYTONA_PROXY");
      assert.equal(emulator.countRequests("POST /toolbox/:id/process/execute"), 4);
      assert.equal(emulator.countRequests(/^POST \/toolbox\//), 4);
    });

    it("a followed log cut mid-way ends quietly with partial output; the command runs on and its log stays whole", async () => {
      const sandbox = await daytona.create();
      await sandbox.process.createSession("cut");
      const command = await sandbox.process.executeSessionCommand("cut", {
        command: "echo one; sleep 0.2; echo two; sleep 0.2; echo three",
        runAsync: true,
      });
      const commandId = command.cmdId ?? "";
      emulator.injectFault({
        route: "GET /toolbox/:id/process/session/:sessionId/command/:commandId/logs",
        fault: { kind: "drop-mid-stream", afterEvents: 1 },
      });
      let followed = "";
      await sandbox.process.getSessionCommandLogs(
        "cut",
        commandId,
        (chunk) => {
          followed += chunk;
        },
        () => {},
      );
      assert.equal(followed, "one\n", "the SDK resolves as if the log had ended");
      await waitFor(async () => (await sandbox.process.getSessionCommand("cut", commandId)).exitCode === 0, {
        timeoutMs: 10_000,
        what: "the cut command to finish",
      });
      assert.equal((await sandbox.process.getSessionCommandLogs("cut", commandId)).stdout, "one\ntwo\nthree\n");
    });

    it("a download cut half-way fails the call", async () => {
      const sandbox = await daytona.create();
      await sandbox.fs.uploadFile(Buffer.alloc(64 * 1024, 1), "big.bin");
      emulator.injectFault({
        route: "POST /toolbox/:id/files/bulk-download",
        fault: { kind: "drop-mid-stream" },
      });
      await assert.rejects(sandbox.fs.downloadFile("big.bin"));
      assert.equal((await sandbox.fs.downloadFile("big.bin")).length, 64 * 1024);
    });

    if (sdk.eventStream) {
      it("requestTimeoutMs shorter than the latency: the SDK's timeout error, not replayed", async () => {
        const sandbox = await daytona.create();
        const impatient = openClient(sdk, emulator, { requestTimeoutMs: 200 });
        try {
          emulator.resetRequests();
          emulator.injectFault({ route: "GET /api/sandbox/:id", fault: { kind: "latency", ms: 1_000 } });
          await assert.rejects(impatient.get(sandbox.id), DaytonaTimeoutError);
          assert.equal(emulator.countRequests("GET /api/sandbox/:id"), 1);
        } finally {
          await impatient[Symbol.asyncDispose]();
        }
      });
    }
  });
}
