// Round trips of the standard workload through FreestyleRuntime and the real freestyle SDK, counted by the
// Freestyle emulator from @sandport/testkit (see workload.mjs). The emulator maps the VM home directory, as
// the package's own tests do, so commands start there as on a VM.
import assert from "node:assert/strict";
import { countRoundTrips, loadBuilt } from "./workload.mjs";

const { FreestyleRuntime } = await loadBuilt("freestyle");
const { startFreestyleEmulator } = await loadBuilt("testkit", "emulators/freestyle");

const emulator = await startFreestyleEmulator({ workspaceDirectory: "/root" });
try {
  const runtime = new FreestyleRuntime({
    apiKey: emulator.apiKey,
    baseUrl: emulator.baseUrl,
    fetch: emulator.sdkOptions.fetch,
    // The emulator's default backend cannot take a VM off the network (the runtime's default).
    network: true,
    owner: "round-trip-count",
  });
  await countRoundTrips({
    title: "FreestyleRuntime (real freestyle SDK against the Freestyle emulator)",
    runtime,
    routes: () => emulator.requests.map((request) => request.route),
    // The /v5 API: create, 20 × PUT fs/write (no batch upload), 3 × exec-await, 2 × GET fs/read, DELETE.
    apiMinimum: 27,
    notes: [
      "launch  +1  one command creates the workspace directory (and writes the launch env, when there is one)",
      "reads   +1 each  a `realpath -m` command refuses paths that leave the workspace through a symlink;",
      "                 skipped while no command has run in a VM this runtime launched (the writes above)",
      "destroy +1  a GET after the DELETE proves the VM is gone (verified cleanup)",
    ],
  });
  assert.deepEqual(emulator.unknownRoutes, []);
  assert.equal(emulator.liveSandboxes().length, 0);
} finally {
  await emulator.stop();
}
