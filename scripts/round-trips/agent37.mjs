// Round trips of the standard workload through Agent37Runtime over real fetch, counted by the Agent37
// emulator from @sandport/testkit (see workload.mjs): the hosting plane and each instance's URL.
import assert from "node:assert/strict";
import { countRoundTrips, loadBuilt } from "./workload.mjs";

const { Agent37Runtime } = await loadBuilt("agent37");
const { startAgent37Emulator } = await loadBuilt("testkit", "emulators/agent37");

const emulator = await startAgent37Emulator();
try {
  const runtime = new Agent37Runtime({ apiKey: emulator.apiKey, baseUrl: emulator.baseUrl, owner: "round-trip-count" });
  await countRoundTrips({
    title: "Agent37Runtime (fetch against the Agent37 emulator)",
    runtime,
    routes: () => emulator.requests.map((request) => request.route),
    // POST /v1/instances, 20 × PUT files/content on the instance URL (no batch upload), 3 × exec,
    // 2 × GET files/content, DELETE.
    apiMinimum: 27,
    notes: [
      "launch  +1  one exec creates the workspace and state directories",
      "reads   +1 each  a `realpath -m` command refuses paths that leave the workspace through a symlink;",
      "                 skipped while no command has run in an instance this runtime launched (the writes above)",
      "destroy +1  a GET after the DELETE proves the instance is gone (verified cleanup)",
    ],
  });
  assert.deepEqual(emulator.unknownRoutes, []);
  assert.equal(emulator.liveSandboxes().length, 0);
} finally {
  await emulator.stop();
}
