// Ownership over Agent37's one unpaginated list, against the emulator: only our
// owner's instances are found, foreign ones are refused everywhere, and a list
// longer than maxListedInstances is refused rather than half read.
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectCode } from "@sandport/testkit/assertions";
import { emulated } from "../test/emulated.js";

const { emulator, runtime, runtimeWith } = await emulated({ owner: "lookup-tests" });

test("findByLabels filters the whole list by owner and labels; another owner's instances are foreign", async () => {
  const ours = await runtime.launch({ labels: { team: "a" } });
  const other = runtimeWith({ owner: "someone-else" });
  const theirs = await other.launch({ labels: { team: "a" } });
  const foreign = await emulator.seedForeignSandbox({ team: "a", "sandport.owner": "lookup-tests-not" });
  assert.deepEqual(
    (await runtime.findByLabels({ team: "a" })).map((handle) => handle.id),
    [ours.id],
  );
  assert.deepEqual(
    (await runtime.findByLabels({})).map((handle) => handle.id),
    [ours.id],
  );
  await expectCode(runtime.getById(theirs.id), "FOREIGN_SANDBOX");
  await expectCode(runtime.getById(foreign), "FOREIGN_SANDBOX");
  await expectCode(runtime.destroy({ id: foreign, provider: "agent37", labels: {} }), "FOREIGN_SANDBOX");
  assert.equal((await runtime.getById(ours.id))?.labels.team, "a");
  assert.equal(await runtime.getById("a37nosuch0"), undefined);
  assert.ok(
    emulator.liveSandboxes().some((sandbox) => sandbox.id === foreign),
    "the foreign instance is untouched",
  );
  await other.destroy(theirs);
  await runtime.destroy(ours);
});

test("a list longer than maxListedInstances is refused, not cut", async () => {
  const first = await runtime.launch();
  const second = await runtime.launch();
  const bounded = runtimeWith({ maxListedInstances: 1 });
  const error = await expectCode(bounded.findByLabels({}), "UNEXPECTED");
  assert.match(error.message, /maxListedInstances/);
  await runtime.destroy(first);
  await runtime.destroy(second);
});

test("instance ids that are not DNS labels are refused before any request", async () => {
  emulator.resetRequests();
  await expectCode(runtime.getById("../v1/instances"), "INVALID_REQUEST");
  assert.equal(emulator.countRequests(), 0);
});
