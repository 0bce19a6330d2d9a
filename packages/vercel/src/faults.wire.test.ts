// Faults injected by the Vercel emulator, seen through the real @vercel/sandbox SDK and
// VercelSandboxRuntime: the shared wire-fault suite (every error typed, no hang past a deadline,
// nothing left unreported), then what only Vercel does: what is safe to repeat is retried by the
// SDK (twice, from 400 ms), what is not (a create, a command start) ends with a typed error
// saying its outcome is unknown and is never sent twice. After every test nothing of ours is
// alive and foreign sandboxes are untouched.
import assert from "node:assert/strict";
import { after, afterEach, before, describe, test } from "node:test";
import { LAUNCH_KEY_LABEL, OWNER_LABEL, SandportError } from "@sandport/core";
import { delay, expectCode, waitFor } from "@sandport/testkit/assertions";
import { startVercelEmulator, type VercelEmulator } from "@sandport/testkit/emulators/vercel";
import { describeWireFaults } from "@sandport/testkit/faults";
import { Sandbox } from "@vercel/sandbox";
import { emulatorOptions } from "../test/emulated.js";
import type { VercelSandboxHandle } from "./handle.js";
import { VercelSandboxRuntime } from "./vercel-runtime.js";

const OWNER = "fault-tests";
const CREATE = "POST /v3/sandboxes";
const LIST = "GET /v2/sandboxes";
const DELETE = "DELETE /v2/sandboxes/:name";
const CMD = "POST /v2/sandboxes/sessions/:sessionId/cmd";

describe("VercelSandboxRuntime under injected faults (real @vercel/sandbox → Vercel emulator)", () => {
  let emulator: VercelEmulator;
  let runtime: VercelSandboxRuntime;
  let foreign: string[] = [];
  const text = async (handle: VercelSandboxHandle, path: string) =>
    new TextDecoder().decode(await runtime.readFile(handle, path));
  /** The file's text, or "" while the command that writes it has not yet (a lost start runs on its own time). */
  const textSoFar = (handle: VercelSandboxHandle, path: string) =>
    text(handle, path).catch((error: unknown) => {
      if (SandportError.hasCode(error, "NOT_FOUND")) return "";
      throw error;
    });
  /** Runs `work` in a fresh sandbox, destroyed afterwards whatever happens. */
  const inSandbox = async (work: (handle: VercelSandboxHandle) => Promise<void>) => {
    const handle = await runtime.launch();
    try {
      await work(handle);
    } finally {
      await runtime.destroy(handle);
    }
  };

  before(async () => {
    emulator = await startVercelEmulator();
    runtime = new VercelSandboxRuntime({ ...emulatorOptions(emulator), owner: OWNER });
    foreign = [
      await emulator.seedForeignSandbox({ pool: "shared", [OWNER_LABEL]: OWNER }),
      (await Sandbox.create({ ...emulator.sdkOptions, name: `sandport-${OWNER}-lookalike`, tags: { pool: "shared" } }))
        .name,
    ];
  });

  afterEach(async () => {
    emulator.clearFaults();
    assert.deepEqual(await runtime.settle(), [], "background cleanup failed");
    const live = emulator.liveSandboxes().map((sandbox) => sandbox.id);
    assert.deepEqual(live.sort(), [...foreign].sort(), "only the foreign sandboxes are alive, untouched");
  });

  after(() => emulator.stop());

  describeWireFaults({
    runtime: () => runtime,
    emulator: () => emulator,
    // A waited command's output streams in the answer to its start.
    routes: { create: CREATE, list: LIST, delete: DELETE, exec: CMD, stream: CMD },
    // The SDK retries a 429 and a 5xx twice, from 400 ms.
    attempts: { createRateLimited: 3, createUnavailable: 3, createServerError: 3, deleteRefused: 3 },
    outcomes: { execRetriedOn: [503] },
    // One page, refused twice and answered by the SDK's retries.
    listRequests: 3,
  });

  test("a create whose answer is lost is not repeated: retryable once its launch key is searched", async () => {
    emulator.resetRequests();
    emulator.injectFault({ route: CREATE, fault: { kind: "lost-response" } });
    const lost = await expectCode(runtime.launch({ labels: { case: "lost" } }), "PROVIDER_UNAVAILABLE");
    assert.equal(emulator.countRequests(CREATE), 1, "the SDK did not send it again");
    assert.equal(lost.details.outcomeUnknown, true);
    assert.equal(lost.retryable, true, "safe to launch again once the launch key is searched");
    const orphans = await runtime.findByLabels({ [LAUNCH_KEY_LABEL]: lost.details.launchKey as string });
    assert.deepEqual(
      orphans.map((orphan) => orphan.labels),
      [{ case: "lost" }],
    );
    await runtime.destroy(orphans[0] as never);
  });

  test("a dropped create connection is not repeated either; a launch key already taken is an unknown outcome", async () => {
    emulator.resetRequests();
    emulator.injectFault({ route: CREATE, fault: { kind: "drop" } });
    const dropped = await expectCode(runtime.launch(), "PROVIDER_UNAVAILABLE");
    assert.equal(emulator.countRequests(CREATE), 1);
    assert.equal(dropped.details.outcomeUnknown, true);
    const first = await runtime.launch({ launchKey: "taken" });
    const taken = await expectCode(runtime.launch({ launchKey: "taken" }), "PROVIDER_UNAVAILABLE");
    assert.equal(taken.details.outcomeUnknown, true);
    assert.match(taken.message, /search launch key taken/);
    await runtime.destroy(first);
  });

  test("a command start whose answer is lost is not repeated: an unknown outcome, run once", async () => {
    await inSandbox(async (handle) => {
      emulator.resetRequests();
      emulator.injectFault({ route: CMD, fault: { kind: "lost-response" } });
      const lost = await expectCode(runtime.exec(handle, { shell: "echo ran >> runs.txt" }), "PROVIDER_UNAVAILABLE");
      assert.equal(lost.retryable, false);
      assert.equal(lost.details.outcomeUnknown, true);
      // It ran (only the response was lost), once: the start was not sent again.
      await waitFor(async () => (await textSoFar(handle, "runs.txt")) === "ran\n", { what: "the lost start to run" });
    });
  });

  test("a command stream cut mid-way is an unknown outcome, and the command is stopped", async () => {
    await inSandbox(async (handle) => {
      emulator.injectFault({ route: CMD, fault: { kind: "drop-mid-stream", afterEvents: 2 } });
      const cut = await expectCode(
        runtime.exec(handle, { shell: "echo first; sleep 0.5; echo second > cut.txt" }),
        "PROVIDER_UNAVAILABLE",
      );
      assert.equal(cut.details.outcomeUnknown, true);
      await delay(800);
      await expectCode(runtime.readFile(handle, "cut.txt"), "NOT_FOUND");
    });
  });

  test("a startCommand whose claim answer is lost asks again; one whose start answer is lost is never run twice", async () => {
    await inSandbox(async (handle) => {
      emulator.injectFault({ route: CMD, fault: { kind: "lost-response" } });
      const ref = await runtime.startCommand(handle, { sessionId: "lost-claim", shell: "echo ran >> claim.txt" });
      await waitFor(async () => ((await runtime.commandStatus(handle, ref)).state === "exited" ? true : undefined));
      assert.equal(await text(handle, "claim.txt"), "ran\n");

      const request = { sessionId: "lost-start", shell: "echo ran >> start.txt" };
      emulator.resetRequests();
      // The claim is the first command of a start, the start itself the second: lose the second's answer.
      emulator.injectFault({ route: CMD, fault: { kind: "latency", ms: 0 } });
      emulator.injectFault({ route: CMD, fault: { kind: "lost-response" } });
      const lost = await expectCode(runtime.startCommand(handle, request), "PROVIDER_UNAVAILABLE");
      assert.equal(lost.details.outcomeUnknown, true);
      assert.equal(emulator.countRequests(CMD), 2, "the claim, then the start, not sent again");
      const refused = await expectCode(runtime.startCommand(handle, request), "UNEXPECTED");
      assert.match(refused.message, /use another session id/);
      // It ran once: the start was sent once (counted above), and its output shows one run.
      await waitFor(async () => (await textSoFar(handle, "start.txt")) === "ran\n", { what: "the lost start to run" });
    });
  });

  test("a delete whose answer is lost is repeated by the SDK: its 404 counts as gone", async () => {
    const handle = await runtime.launch();
    emulator.resetRequests();
    emulator.injectFault({ route: DELETE, fault: { kind: "lost-response" } });
    await runtime.destroy(handle);
    assert.deepEqual(
      emulator.requests.map((request) => `${request.route} ${request.status}`),
      [`${DELETE} 0`, `${DELETE} 404`],
      "the repeat's 404 is the proof: no listing after it",
    );
  });

  test("foreign sandboxes are never listed, reattached, used or destroyed", async () => {
    emulator.resetRequests();
    assert.deepEqual(await runtime.findByLabels({ pool: "shared" }), []);
    for (const id of foreign) {
      const forged = { id, provider: "vercel" as const, labels: {} };
      await expectCode(runtime.getById(id), "FOREIGN_SANDBOX");
      await expectCode(runtime.destroy(forged), "FOREIGN_SANDBOX");
      await expectCode(runtime.exec(forged, { argv: ["true"] }), "FOREIGN_SANDBOX");
    }
    assert.equal(emulator.countRequests(/DELETE|cmd|:name/), 0, "never fetched (resumed), used or deleted");
  });
});
