// getById and findByLabels through the real e2b SDK against the E2B emulator
// (pages of 2): absence, foreign sandboxes, every page, the label query rules.
import assert from "node:assert/strict";
import { test } from "node:test";
import { LAUNCH_KEY_LABEL, type Labels, OWNER_LABEL } from "@sandport/core";
import { expectCode } from "@sandport/testkit/assertions";
import { emulated } from "../test/emulated.js";

const LIST = "GET /v2/sandboxes";

const { emulator, runtime, runtimeWith } = await emulated({ owner: "lookup-tests" }, { pageSize: 2 });

const ids = (handles: readonly { id: string }[]) => handles.map((handle) => handle.id).sort();

test("getById: absent resolves undefined, foreign rejects FOREIGN_SANDBOX, ours gives a plain handle", async () => {
  assert.equal(await runtime.getById("nothing-here"), undefined);
  const foreign = await emulator.seedForeignSandbox();
  const lookalike = await emulator.seedForeignSandbox({ job: "42", [OWNER_LABEL]: "someone-else" });
  emulator.resetRequests();
  await expectCode(runtime.getById(foreign), "FOREIGN_SANDBOX");
  await expectCode(runtime.getById(lookalike), "FOREIGN_SANDBOX");
  assert.equal(emulator.countRequests(/connect/), 0, "a foreign sandbox is never connected to (that would resume it)");
  const launched = await runtime.launch({ labels: { job: "42" } });
  const found = await runtimeWith({}).getById(launched.id);
  // A launch's handle has no resources (E2B's create answers none); the one getById rebuilds reads them.
  assert.deepEqual(
    { ...found, createdAt: undefined, resources: undefined },
    { ...launched, createdAt: undefined, resources: undefined },
  );
  assert.ok(found?.resources?.cpus, "the rebuilt handle says what E2B gave");
  assert.match(found?.createdAt ?? "", /^\d{4}-\d\d-\d\dT/);
  assert.deepEqual(JSON.parse(JSON.stringify(found)), found, "a handle is plain data");
  emulator.resetRequests();
  for (const id of ["bad id!", "..", "a/b", ""]) await expectCode(runtime.getById(id), "INVALID_REQUEST", id);
  assert.equal(emulator.countRequests(), 0);
});

test("getById maps provider failures instead of hiding them", async () => {
  const wrongKey = runtimeWith({ apiKey: "e2b_wrong" });
  await expectCode(wrongKey.getById("sbx1"), "AUTH");
  emulator.injectFault({ route: "GET /sandboxes/:id", fault: { kind: "status", status: 500 } });
  const error = await expectCode(runtime.getById("sbx1"), "PROVIDER_UNAVAILABLE");
  assert.equal(error.retryable, true);
  assert.equal(error.details.status, 500);
});

test("findByLabels walks every page, returns only ours, and never foreign look-alikes", async () => {
  const pool: string[] = [];
  for (let index = 0; index < 5; index++) pool.push((await runtime.launch({ labels: { pool: "a" } })).id);
  await runtime.launch({ labels: { pool: "b" } });
  await emulator.seedForeignSandbox({ pool: "a", [OWNER_LABEL]: "someone-else" });
  await emulator.seedForeignSandbox({ pool: "a" });
  emulator.resetRequests();
  assert.deepEqual(ids(await runtime.findByLabels({ pool: "a" })), pool.sort());
  assert.equal(emulator.countRequests(LIST), 3, "5 matches at 2 per page is 3 pages");
  const query = new URLSearchParams(emulator.requests[0]?.path.split("?")[1]);
  assert.equal(query.get("metadata"), `pool=a&${OWNER_LABEL}=lookup-tests`, "the owner is part of the filter");
  assert.equal(query.get("state"), "running,paused");
  assert.equal(query.get("limit"), "100");
  emulator.resetRequests();
  assert.deepEqual(await runtime.findByLabels({ [OWNER_LABEL]: "someone-else" }), []);
  assert.equal(emulator.countRequests(), 0, "another owner's marker is answered without a request");
});

test("findByLabels({}) is every sandbox of ours; undefined is refused before any request", async () => {
  const all = await runtime.findByLabels({});
  assert.ok(all.length >= 6);
  assert.ok(all.every((handle) => handle.provider === "e2b"));
  const reserved = await runtime.findByLabels({ [LAUNCH_KEY_LABEL]: "no-such-key" });
  assert.deepEqual(reserved, [], "reserved labels may be named");
  emulator.resetRequests();
  await expectCode(runtime.findByLabels(undefined as unknown as Labels), "INVALID_REQUEST");
  await expectCode(runtime.findByLabels(null as unknown as Labels), "INVALID_REQUEST");
  await expectCode(runtime.findByLabels({ "bad key!": "x" }), "INVALID_REQUEST");
  assert.equal(emulator.countRequests(), 0);
});

test("findByLabels retries a failed page (a read) and surfaces a persistent failure", async () => {
  emulator.injectFault({ route: LIST, fault: { kind: "status", status: 503 } });
  assert.equal((await runtime.findByLabels({ pool: "a" })).length, 5);
  emulator.injectFault({ route: LIST, fault: { kind: "status", status: 401 } });
  await expectCode(runtime.findByLabels({ pool: "a" }), "AUTH");
});

test("listPageSize is the limit of every page", async () => {
  const small = runtimeWith({ listPageSize: 1 });
  emulator.resetRequests();
  assert.equal((await small.findByLabels({ pool: "a" })).length, 5);
  assert.equal(emulator.countRequests(LIST), 5);
  assert.ok(emulator.requests.every((request) => new URL(request.path, "http://x").searchParams.get("limit") === "1"));
});
