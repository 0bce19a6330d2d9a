import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { OWNER_LABEL } from "@sandport/core";
import type { E2BListOptions } from "./internal/sdk-types.js";
import { rejectsWithCode } from "./testing/assertions.js";
import { sdkErrors } from "./testing/fake-e2b.js";
import { type FakeSetup, fakeSetup } from "./testing/setup.js";

let setup: FakeSetup | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

test("getById: absent resolves undefined, foreign rejects FOREIGN_SANDBOX, ours gives a plain handle", async () => {
  setup = await fakeSetup();
  const { runtime, fake } = setup;
  assert.equal(await runtime.getById("nothing-here"), undefined);
  const foreign = fake.seedForeign();
  await rejectsWithCode(runtime.getById(foreign), "FOREIGN_SANDBOX");
  const unmarked = fake.seedForeign({ job: "42" });
  await rejectsWithCode(runtime.getById(unmarked), "FOREIGN_SANDBOX");
  assert.equal(
    fake.callsOf("Sandbox.connect").length,
    0,
    "a foreign sandbox is never connected to (that would resume it)",
  );
  const launched = await runtime.launch({ labels: { job: "42" } });
  const found = await runtime.getById(launched.id);
  assert.deepEqual({ ...found, createdAt: undefined }, { ...launched, createdAt: undefined });
  assert.deepEqual(JSON.parse(JSON.stringify(found)), found, "a handle is plain data");
  await rejectsWithCode(runtime.getById("bad id!"), "INVALID_REQUEST");
});

test("getById maps provider failures instead of hiding them", async () => {
  setup = await fakeSetup();
  setup.fake.fail("Sandbox.getInfo", sdkErrors.auth);
  await rejectsWithCode(setup.runtime.getById("sbx1"), "AUTH");
  setup.fake.fail("Sandbox.getInfo", sdkErrors.serverError);
  await rejectsWithCode(setup.runtime.getById("sbx1"), "PROVIDER_UNAVAILABLE");
});

test("findByLabels walks every page, returns only ours, and never foreign look-alikes", async () => {
  setup = await fakeSetup();
  const { runtime, fake } = setup;
  fake.pageSize = 2;
  const ours = [];
  for (let index = 0; index < 5; index++)
    ours.push(await runtime.launch({ labels: { pool: "a", index: String(index) } }));
  await runtime.launch({ labels: { pool: "b" } });
  fake.seedForeign({ pool: "a", [OWNER_LABEL]: "someone-else" });
  fake.seedForeign({ pool: "a" });
  const found = await runtime.findByLabels({ pool: "a" });
  assert.deepEqual(found.map((handle) => handle.id).sort(), ours.map((handle) => handle.id).sort());
  assert.equal(fake.callsOf("Sandbox.list.nextItems").length, 3, "5 matches at 2 per page is 3 pages");
  const query = fake.callsOf("Sandbox.list")[0]?.args[0] as E2BListOptions;
  assert.deepEqual(query.query.metadata, { pool: "a", [OWNER_LABEL]: "unit-tests" }, "the owner is part of the filter");
  assert.deepEqual(query.query.state, ["running", "paused"]);
  assert.equal(query.apiKey, "e2b_test_key");
  assert.deepEqual(await runtime.findByLabels({ [OWNER_LABEL]: "someone-else" }), []);
});

test("findByLabels retries a failed page (a read) and surfaces a persistent failure", async () => {
  setup = await fakeSetup();
  const { runtime, fake } = setup;
  fake.pageSize = 1;
  await runtime.launch({ labels: { pool: "x" } });
  await runtime.launch({ labels: { pool: "x" } });
  fake.fail("Sandbox.list.nextItems", sdkErrors.serviceBusy);
  assert.equal((await runtime.findByLabels({ pool: "x" })).length, 2);
  fake.fail("Sandbox.list.nextItems", sdkErrors.rateLimited, { times: 3 });
  const error = await rejectsWithCode(runtime.findByLabels({ pool: "x" }), "RATE_LIMITED");
  assert.equal(error.retryable, true);
  fake.fail("Sandbox.list.nextItems", sdkErrors.auth);
  await rejectsWithCode(runtime.findByLabels({ pool: "x" }), "AUTH");
});

test("findByLabels validates labels before any call", async () => {
  setup = await fakeSetup();
  await rejectsWithCode(setup.runtime.findByLabels({ "bad key!": "x" }), "INVALID_REQUEST");
  assert.equal(setup.fake.calls.length, 0);
});
