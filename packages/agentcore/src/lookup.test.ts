// Lookups through the real SDK against the emulator: every page of the
// session list, label matching by the digests in the names and the labels
// files, terminated sessions absent, other owners' sessions foreign.
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectCode } from "@sandport/testkit/assertions";
import { emulated } from "../test/emulated.js";

const { emulator, runtime, runtimeWith } = await emulated({ owner: "lookup-tests" });

test("findByLabels walks every page and matches every label", async () => {
  const paged = runtimeWith({ listPageSize: 1 });
  const handles = await Promise.all([
    runtime.launch({ labels: { role: "web", zone: "a" } }),
    runtime.launch({ labels: { role: "web", zone: "b" } }),
    runtime.launch({ labels: { role: "db", zone: "a" } }),
  ]);
  try {
    emulator.resetRequests();
    const web = await paged.findByLabels({ role: "web" });
    assert.deepEqual(web.map((found) => found.labels.zone).sort(), ["a", "b"]);
    assert.ok(emulator.countRequests("ListCodeInterpreterSessions") >= 3, "one page per session");
    assert.deepEqual(
      (await paged.findByLabels({ role: "web", zone: "a" })).map((found) => found.id),
      [handles[0]?.id],
    );
    assert.deepEqual(await paged.findByLabels({ role: "cache" }), []);
    assert.equal((await paged.findByLabels({})).length, 3);
  } finally {
    for (const handle of handles) await runtime.destroy(handle);
  }
  assert.deepEqual(await runtime.findByLabels({}), [], "terminated sessions are not listed");
});

test("another owner's sessions are foreign; a terminated session is absent", async () => {
  const theirs = await runtimeWith({ owner: "someone-else" }).launch({ labels: { role: "web" } });
  try {
    await expectCode(() => runtime.getById(theirs.id), "FOREIGN_SANDBOX", "getById of another owner's session");
    assert.deepEqual(await runtime.findByLabels({ role: "web" }), []);
  } finally {
    await runtimeWith({ owner: "someone-else" }).destroy(theirs);
  }
  assert.equal(await runtimeWith({ owner: "someone-else" }).getById(theirs.id), undefined);
});
