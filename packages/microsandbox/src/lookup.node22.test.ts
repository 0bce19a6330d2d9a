// getById and findByLabels through the real SDK: one request each (every page
// for a search), ownership re-checked, foreign sandboxes never returned.
import assert from "node:assert/strict";
import { test } from "node:test";
import { OWNER_LABEL } from "@sandport/core";
import { expectCode } from "@sandport/testkit/assertions";
import { emulated } from "../test/emulated.js";

const { emulator, runtime, runtimeWith } = await emulated({ owner: "lookups" }, { pageSize: 2 });

test("getById is one GET by name; absent is undefined; a foreign sandbox is FOREIGN_SANDBOX and stays", async () => {
  const handle = await runtime.launch({ labels: { team: "core" } });
  emulator.resetRequests();
  const found = await runtime.getById(handle.id);
  // The lookup reads what was granted from the record; the launch's own handle cannot tell.
  assert.deepEqual(
    { ...found, createdAt: undefined },
    { ...handle, createdAt: undefined, resources: { cpus: 1, memoryMiB: 512 } },
  );
  assert.ok(found?.createdAt && !Number.isNaN(Date.parse(found.createdAt)));
  assert.deepEqual(
    emulator.requests.map((request) => request.route),
    ["GET /v1/sandboxes/by-name/:name"],
  );
  assert.equal(await runtime.getById("sandport-never-was"), undefined);
  const foreignId = await emulator.seedForeignSandbox({ team: "core", [OWNER_LABEL]: "someone-else" });
  const foreignName = (await fetch(`${emulator.apiUrl}/v1/sandboxes/${foreignId}`, {
    headers: { authorization: `Bearer ${emulator.apiKey}` },
  }).then((response) => response.json())) as { name: string };
  await expectCode(runtime.getById(foreignName.name), "FOREIGN_SANDBOX");
  const forged = { id: foreignName.name, provider: "microsandbox" as const, labels: {} };
  await expectCode(runtime.destroy(forged), "FOREIGN_SANDBOX");
  await expectCode(runtime.exec(forged, { argv: ["true"] }), "FOREIGN_SANDBOX");
  assert.ok(
    emulator.liveSandboxes().some((sandbox) => sandbox.id === foreignId),
    "the foreign sandbox is untouched",
  );
  await runtime.destroy(handle);
});

test("findByLabels walks every page of the server-side filter; another owner sees none of ours", async () => {
  const launched = await Promise.all(
    [1, 2, 3, 4, 5].map((index) => runtime.launch({ labels: { batch: "b", n: `${index}` } })),
  );
  await emulator.seedForeignSandbox({ batch: "b" });
  emulator.resetRequests();
  const found = await runtime.findByLabels({ batch: "b" });
  assert.deepEqual(found.map((handle) => handle.id).sort(), launched.map((handle) => handle.id).sort());
  assert.equal(emulator.countRequests("GET /v1/sandboxes"), 3, "five of ours in pages of two");
  for (const request of emulator.requests) {
    const labels = JSON.parse(new URL(request.path, emulator.apiUrl).searchParams.get("labels") ?? "{}");
    assert.deepEqual(labels, { batch: "b", [OWNER_LABEL]: "lookups" }, "the owner is part of the server-side filter");
  }
  assert.deepEqual(
    (await runtime.findByLabels({ batch: "b", n: "3" })).map((handle) => handle.labels),
    [{ batch: "b", n: "3" }],
  );
  emulator.resetRequests();
  assert.deepEqual(await runtime.findByLabels({ [OWNER_LABEL]: "someone-else" }), []);
  assert.equal(emulator.requests.length, 0, "a query for another owner is answered without asking");
  assert.deepEqual(await runtimeWith({ owner: "other-team" }).findByLabels({ batch: "b" }), []);
  await expectCode(runtime.findByLabels(undefined as never), "INVALID_REQUEST");
  for (const handle of launched) await runtime.destroy(handle);
});
