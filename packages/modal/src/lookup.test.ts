// getById and findByLabels through the real modal SDK against the Modal
// emulator: ownership by server-side tags, finished sandboxes gone, every page
// followed, foreign sandboxes (even in the same App, with the same labels)
// never returned, and ids this runtime cannot own refused before any request.
import assert from "node:assert/strict";
import { test } from "node:test";
import { LAUNCH_KEY_LABEL, OWNER_LABEL } from "@sandport/core";
import { expectCode } from "@sandport/testkit/assertions";
import { emulated } from "../test/emulated.js";

const CONTROL = "rpc modal.client.ModalClient/";

const { emulator, runtime, runtimeWith } = await emulated(
  { owner: "lookup-tests", appName: "lookups" },
  { pageSize: 2 },
);

test("getById rebuilds the handle from the tags; a new instance too; unknown and finished ids are undefined", async () => {
  const handle = await runtime.launch({ labels: { job: "7", "team/name": "a b" } });
  assert.deepEqual(await runtime.getById(handle.id), handle);
  const other = runtimeWith({});
  emulator.resetRequests();
  assert.deepEqual(await other.getById(handle.id), handle);
  assert.deepEqual(
    emulator.requests.map((request) => request.route.replace(CONTROL, "")),
    ["AuthTokenGet", "SandboxWaitV2", "SandboxTagsGetV2"],
    "a poll, then the tags",
  );
  assert.equal(await runtime.getById("sb-01ARZ3NDEKTSV4RRFFQ69G5FAV"), undefined);
  await runtime.destroy(handle);
  assert.equal(await runtime.getById(handle.id), undefined, "a finished sandbox is gone");
});

test("ids that cannot be a sandbox of this runtime are refused before any request", async () => {
  emulator.resetRequests();
  for (const id of ["", "..", "sb-", "sb-../x", "/etc", "sb-a/b", "x".repeat(80)]) {
    await expectCode(runtime.getById(id), "INVALID_REQUEST", JSON.stringify(id));
  }
  // A V1 sandbox id (22 characters): never created here, and not listed by Modal's list.
  await expectCode(runtime.getById("sb-abcdefghijABCDEFGHIJ12"), "INVALID_REQUEST");
  assert.equal(emulator.countRequests(), 0);
});

test("findByLabels filters on the server within the App, follows every page, and re-checks each match", async () => {
  const pool = await Promise.all([1, 2, 3].map(() => runtime.launch({ labels: { pool: "p1" } })));
  const elsewhere = await runtime.launch({ labels: { pool: "p2" } });
  const foreign = [
    await emulator.seedForeignSandbox({ pool: "p1" }, { appName: "lookups" }),
    await emulator.seedForeignSandbox({ pool: "p1", [OWNER_LABEL]: "someone-else" }, { appName: "lookups" }),
  ];
  // Our ownership tag in another App: ours by the marker (getById finds it), outside the App findByLabels searches.
  const otherApp = await emulator.seedForeignSandbox({ pool: "p1", [OWNER_LABEL]: "lookup-tests" }, { appName: "x" });
  emulator.resetRequests();
  const found = await runtime.findByLabels({ pool: "p1" });
  assert.deepEqual(found.map((handle) => handle.id).sort(), pool.map((handle) => handle.id).sort());
  assert.ok(found.every((handle) => handle.labels.pool === "p1" && !(OWNER_LABEL in handle.labels)));
  assert.equal(emulator.countRequests(`${CONTROL}SandboxListV2`), 3, "pages of 2, 1, then an empty one");
  assert.equal(emulator.countRequests(`${CONTROL}SandboxTagsGetV2`), 3, "one tag read per match");
  const all = (await runtime.findByLabels({})).map((handle) => handle.id);
  assert.ok([...pool, elsewhere].every((handle) => all.includes(handle.id)));
  assert.ok(![...foreign, otherApp].some((id) => all.includes(id)), "foreign sandboxes are never listed");
  assert.equal((await runtime.getById(otherApp))?.id, otherApp);
  assert.deepEqual(await runtime.findByLabels({ [OWNER_LABEL]: "someone-else" }), [], "another owner's marker");
  const launchKey = emulator.liveSandboxes().find((entry) => entry.id === elsewhere.id)?.metadata[LAUNCH_KEY_LABEL];
  assert.deepEqual(
    (await runtime.findByLabels({ [LAUNCH_KEY_LABEL]: launchKey as string })).map((handle) => handle.id),
    [elsewhere.id],
  );
  await expectCode(runtime.findByLabels(undefined as never), "INVALID_REQUEST");
  for (const id of foreign) await expectCode(runtime.getById(id), "FOREIGN_SANDBOX");
  for (const handle of [...pool, elsewhere]) await runtime.destroy(handle);
  assert.deepEqual(await runtime.findByLabels({ pool: "p1" }), [], "terminated sandboxes are not listed");
});

test("a failed listing is repeated (a read); a persistent failure is typed, never a partial list", async () => {
  const handle = await runtime.launch({ labels: { retried: "yes" } });
  const LIST = `${CONTROL}SandboxListV2`;
  emulator.injectFault({ route: LIST, fault: { kind: "status", status: 429 } });
  assert.deepEqual(
    (await runtime.findByLabels({ retried: "yes" })).map((found) => found.id),
    [handle.id],
  );
  emulator.injectFault({ route: LIST, fault: { kind: "status", status: 403 } });
  await expectCode(runtime.findByLabels({ retried: "yes" }), "AUTH");
  await runtime.destroy(handle);
});
