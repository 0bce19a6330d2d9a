// getById and findByLabels through the real freestyle SDK against the emulator
// (2 VMs a page): ownership needs both marks, every page is walked, the
// metadata filter is applied by Freestyle and again here, and a list that
// changes while it is walked still finds every VM that existed throughout.
import assert from "node:assert/strict";
import { test } from "node:test";
import { LAUNCH_KEY_LABEL, OWNER_LABEL } from "@sandport/core";
import { expectCode } from "@sandport/testkit/assertions";
import { type CreateVmOptions, Freestyle } from "freestyle";
import { emulated } from "../test/emulated.js";
import type { FreestyleHandle } from "./handle.js";

const LIST = "GET /v5/vms";
const OWNER = "lookup-tests";

const { emulator, runtime } = await emulated({ owner: OWNER }, { pageSize: 2 });
const freestyle = new Freestyle(emulator.sdkOptions);
const egress: CreateVmOptions["firewall"] = { rules: [{ action: "allow", source: {}, destination: { public: true } }] };
const launched: FreestyleHandle[] = [];
for (let index = 0; index < 5; index++) {
  launched.push(await runtime.launch({ labels: { pool: "p", index: String(index), note: index === 0 ? "a,b" : "x" } }));
}
const ids = (handles: readonly FreestyleHandle[]) => handles.map((handle) => handle.id).sort();

test("getById: ours is a handle with the caller's labels only; an unknown id is undefined", async () => {
  const found = await runtime.getById(launched[0]!.id);
  assert.deepEqual(found?.labels, { pool: "p", index: "0", note: "a,b" });
  assert.match(found?.createdAt ?? "", /^\d{4}-\d\d-\d\dT/);
  assert.equal(await runtime.getById("nosuchvm00000000000"), undefined);
  await expectCode(runtime.getById("../x"), "INVALID_REQUEST");
});

test("a VM lacking either mark is foreign: no owner marker, another owner, or no slug under the prefix", async () => {
  const noMarks = await emulator.seedForeignSandbox({ pool: "p" });
  const noSlug = await emulator.seedForeignSandbox({ pool: "p", [OWNER_LABEL]: OWNER, [LAUNCH_KEY_LABEL]: "k" });
  const { vmId: otherOwner } = await freestyle.vms.create({
    slug: "sandport-not-ours",
    metadata: { pool: "p", [OWNER_LABEL]: "someone-else" },
    firewall: egress,
  });
  const { vmId: otherPrefix } = await freestyle.vms.create({
    slug: "elsewhere-1",
    metadata: { pool: "p", [OWNER_LABEL]: OWNER },
    firewall: egress,
  });
  try {
    emulator.resetRequests();
    for (const id of [noMarks, noSlug, otherOwner, otherPrefix]) {
      await expectCode(runtime.getById(id), "FOREIGN_SANDBOX");
      await expectCode(runtime.destroy({ id, provider: "freestyle", labels: {} }), "FOREIGN_SANDBOX");
      await expectCode(runtime.exec({ id, provider: "freestyle", labels: {} }, { argv: ["true"] }), "FOREIGN_SANDBOX");
      await expectCode(runtime.readFile({ id, provider: "freestyle", labels: {} }, "a"), "FOREIGN_SANDBOX");
    }
    assert.equal(emulator.countRequests(/DELETE|exec-await|fs\//), 0, "never used or deleted");
    assert.deepEqual(ids(await runtime.findByLabels({ pool: "p" })), ids(launched));
    // The API finds VMs by slug where it takes an id: a slug is not an id of ours.
    assert.equal(await runtime.getById("elsewhere-1"), undefined);
  } finally {
    for (const id of [noMarks, noSlug, otherOwner, otherPrefix]) await freestyle.vms.delete(id);
  }
});

test("findByLabels walks every page with Freestyle's metadata filter and checks each result again", async () => {
  emulator.resetRequests();
  assert.deepEqual(ids(await runtime.findByLabels({ pool: "p" })), ids(launched));
  const lists = emulator.requests.filter((request) => request.route === LIST);
  assert.equal(lists.length, 3, "5 VMs, 2 a page");
  const filter = new URL(lists[0]!.path, "http://x").searchParams.get("metadata");
  assert.equal(filter, `pool:p,${OWNER_LABEL}:${OWNER}`);
  assert.deepEqual(ids(await runtime.findByLabels({ index: "3" })), [launched[3]!.id]);
  assert.deepEqual(ids(await runtime.findByLabels({})), ids(launched), "{}: every VM of ours");
  const found = await runtime.findByLabels({ index: "1" });
  assert.deepEqual(found[0]?.labels, { pool: "p", index: "1", note: "x" }, "no reserved labels in a handle");
});

test("a value the filter cannot carry (a comma) is matched here; one Freestyle cannot store matches nothing", async () => {
  emulator.resetRequests();
  assert.deepEqual(ids(await runtime.findByLabels({ note: "a,b" })), [launched[0]!.id]);
  const filter = new URL(emulator.requests[0]!.path, "http://x").searchParams.get("metadata");
  assert.equal(filter, `${OWNER_LABEL}:${OWNER}`, "the comma value is left out of the filter");
  emulator.resetRequests();
  assert.deepEqual(await runtime.findByLabels({ note: "x".repeat(64) }), []);
  assert.deepEqual(await runtime.findByLabels({ note: "" }), []);
  assert.deepEqual(await runtime.findByLabels({ [OWNER_LABEL]: "someone-else" }), []);
  assert.equal(emulator.countRequests(), 0, "nothing can match: nothing is sent");
  await expectCode(runtime.findByLabels(undefined as never), "INVALID_REQUEST");
});

test("a VM deleted while the list is walked shifts the pages: the walk is repeated and misses nothing", async () => {
  const doomed = await runtime.launch({ labels: { pool: "p" } });
  emulator.injectFault({ route: LIST, fault: { kind: "latency", ms: 0 } });
  emulator.injectFault({ route: LIST, fault: { kind: "latency", ms: 300 } });
  emulator.resetRequests();
  const walking = runtime.findByLabels({ pool: "p" });
  await new Promise((resolve) => setTimeout(resolve, 100));
  // The first page is answered; deleting the oldest VM of ours shifts the next page by one.
  const first = launched.shift()!;
  await runtime.destroy(first);
  const found = ids(await walking);
  for (const handle of [...launched, doomed]) assert.ok(found.includes(handle.id), `${handle.id} was missed`);
  assert.ok(emulator.countRequests(LIST) >= 5, "the changed total started a second walk");
  launched.push(doomed);
});
