// Fault injection through the real @vercel/sandbox SDK, whose fetch wrapper
// retries network errors, 429 and 5xx twice (after about 0.4 s and 0.8 s).

import assert from "node:assert/strict";
import { after, afterEach, before, beforeEach, describe, it } from "node:test";
import { APIError, Sandbox } from "@vercel/sandbox";
import { waitFor } from "../../assertions/index.js";
import { startVercelEmulator, type VercelEmulator } from "./emulator.js";

type CreateParams = NonNullable<Parameters<typeof Sandbox.create>[0]>;

const CREATE = "POST /v3/sandboxes";
const DELETE = "DELETE /v2/sandboxes/:name";

describe("Vercel emulator faults with the real @vercel/sandbox SDK", () => {
  let emulator: VercelEmulator;

  before(async () => {
    emulator = await startVercelEmulator();
  });

  after(() => emulator.stop());

  beforeEach(() => {
    emulator.clearFaults();
    emulator.resetRequests();
  });

  afterEach(async () => {
    emulator.clearFaults();
    for (const { id } of emulator.liveSandboxes()) {
      await Sandbox.get({ ...emulator.sdkOptions, name: id })
        .then((sandbox) => sandbox.delete())
        .catch(() => undefined);
    }
  });

  const create = (extra: Partial<CreateParams> = {}) =>
    Sandbox.create({ ...emulator.sdkOptions, timeout: 60_000, ...extra } as CreateParams);
  const statuses = (route: string) =>
    emulator.requests.filter((request) => request.route === route).map((request) => request.status);

  it("429 with Retry-After is waited out and retried by the SDK; the sandbox is created once", async () => {
    emulator.injectFault({ route: CREATE, fault: { kind: "status", status: 429, retryAfterSeconds: 1 } });
    const started = Date.now();
    const sandbox = await create();
    assert.ok(Date.now() - started >= 1_000, "the SDK waited for Retry-After");
    assert.deepEqual(statuses(CREATE), [429, 200]);
    assert.deepEqual(
      emulator.liveSandboxes().map((entry) => entry.id),
      [sandbox.name],
    );
  });

  it("one 500 is retried away; three surface as the SDK's APIError and create nothing", async () => {
    emulator.injectFault({ route: CREATE, fault: { kind: "status", status: 500 } });
    await create({ name: "after-one-500" });
    assert.deepEqual(statuses(CREATE), [500, 200]);

    emulator.resetRequests();
    emulator.injectFault({ route: CREATE, fault: { kind: "status", status: 502 }, times: 3 });
    const error = await create({ name: "never" }).then(
      () => assert.fail("create must fail"),
      (caught: unknown) => caught,
    );
    assert.ok(error instanceof APIError);
    assert.equal(error.response.status, 502);
    assert.equal((error.json as { error: { code: string } }).error.code, "internal_server_error");
    assert.deepEqual(statuses(CREATE), [502, 502, 502]);
    assert.deepEqual(
      emulator.liveSandboxes().map((entry) => entry.id),
      ["after-one-500"],
    );
  });

  it("dropped connections are retried as network errors; three in a row fail the call before any work", async () => {
    emulator.injectFault({ route: CREATE, fault: { kind: "drop" } });
    await create({ name: "after-drop" });
    assert.deepEqual(statuses(CREATE), [0, 200]);
    emulator.resetRequests();
    emulator.injectFault({ route: CREATE, fault: { kind: "drop" }, times: 3 });
    await assert.rejects(create({ name: "never" }), (error: unknown) => !(error instanceof APIError));
    assert.equal(emulator.countRequests(CREATE), 3);
    assert.deepEqual(
      emulator.liveSandboxes().map((entry) => entry.id),
      ["after-drop"],
    );
  });

  it("a lost create response: the retry of a named create gets 400 (it exists); an unnamed one leaves an orphan", async () => {
    emulator.injectFault({ route: CREATE, fault: { kind: "lost-response" } });
    const named = await create({ name: "lost", tags: { "launch-key": "k1" } }).then(
      () => assert.fail("the retry must find the name taken"),
      (caught: unknown) => caught,
    );
    assert.ok(named instanceof APIError);
    assert.equal(named.response.status, 400);
    assert.deepEqual(statuses(CREATE), [0, 400]);
    const found = await Sandbox.list({ ...emulator.sdkOptions, tags: { "launch-key": "k1" } });
    assert.deepEqual(
      found.sandboxes.map((entry) => entry.name),
      ["lost"],
      "the sandbox the caller never heard of is found by its tag",
    );

    emulator.injectFault({ route: CREATE, fault: { kind: "lost-response" } });
    const unnamed = await create({ tags: { run: "orphan" } });
    const tagged = await (await Sandbox.list({ ...emulator.sdkOptions, tags: { run: "orphan" } })).toArray();
    assert.equal(tagged.length, 2, "the retry created a second sandbox");
    assert.ok(tagged.some((entry) => entry.name === unnamed.name));
  });

  it("5xx and lost responses on delete: retried; a delete whose answer was lost reports 404 on its retry", async () => {
    const sandbox = await create({ name: "doomed" });
    emulator.injectFault({ route: DELETE, fault: { kind: "status", status: 503 }, times: 3 });
    await assert.rejects(
      sandbox.delete(),
      (error: unknown) => error instanceof APIError && error.response.status === 503,
    );
    assert.equal(emulator.liveSandboxes().length, 1);
    emulator.injectFault({ route: DELETE, fault: { kind: "lost-response" } });
    await assert.rejects(
      sandbox.delete(),
      (error: unknown) => error instanceof APIError && error.response.status === 404,
    );
    assert.deepEqual(emulator.liveSandboxes(), []);
    assert.deepEqual(statuses(DELETE), [503, 503, 503, 0, 404]);
  });

  it("a command stream cut mid-way fails the call; the command itself keeps running in the sandbox", async () => {
    const sandbox = await create();
    emulator.injectFault({
      route: "POST /v2/sandboxes/sessions/:sessionId/cmd",
      fault: { kind: "drop-mid-stream", afterEvents: 1 },
    });
    await assert.rejects(sandbox.runCommand("sh", ["-c", "sleep 0.3; echo done > marker.txt"]));
    assert.equal(
      emulator.countRequests("POST /v2/sandboxes/sessions/:sessionId/cmd"),
      1,
      "a cut stream is not retried",
    );
    const marker = await waitFor(() => sandbox.readFileToBuffer({ path: "marker.txt" }), {
      intervalMs: 50,
      what: "the command to write its marker",
    });
    assert.equal(marker.toString(), "done\n");
  });

  it("latency delays answers; faults match route patterns, apply `times` times, and requests are counted", async () => {
    const sandbox = await create();
    await sandbox.writeFiles([{ path: "a.txt", content: "a" }]);
    emulator.resetRequests();
    emulator.injectFault({ route: /\/fs\/read$/, fault: { kind: "latency", ms: 400 }, times: 2 });
    const started = Date.now();
    await sandbox.readFileToBuffer({ path: "a.txt" });
    await sandbox.readFileToBuffer({ path: "a.txt" });
    assert.ok(Date.now() - started >= 780);
    const quick = Date.now();
    await sandbox.readFileToBuffer({ path: "a.txt" });
    assert.ok(Date.now() - quick < 350, "the rule is spent after two uses");
    assert.equal(emulator.countRequests("POST /v2/sandboxes/sessions/:sessionId/fs/read"), 3);
    assert.equal(emulator.countRequests(/^POST \/v2\/sandboxes\/sessions\//), 3);
    assert.equal(emulator.countRequests(), 3);
  });
});
