// Round trips of the standard workload through VercelRuntime and the real @vercel/sandbox SDK,
// counted by the Vercel emulator from @sandport/testkit (see workload.mjs).
import assert from "node:assert/strict";
import { countRoundTrips, loadBuilt } from "./workload.mjs";

const { VercelRuntime } = await loadBuilt("vercel");
const { startVercelEmulator } = await loadBuilt("testkit", "emulators/vercel");

const emulator = await startVercelEmulator();
try {
  const runtime = new VercelRuntime({
    ...emulator.credentials,
    fetch: emulator.fetch,
    owner: "round-trip-count",
  });
  await countRoundTrips({
    title: "VercelRuntime (real @vercel/sandbox SDK against the Vercel emulator)",
    runtime,
    routes: () => emulator.requests.map((request) => request.route),
    // Create, one upload, three commands, two reads, one delete.
    apiMinimum: 8,
    peers: [
      {
        name: "ComputeSDK 4.1.4 (@computesdk/vercel 1.7.31, which pins @vercel/sandbox 1.10.2)",
        requests: 31,
        source:
          "counted once, outside this repository, against a local fake of the Vercel API, reached only by replacing the global fetch (the adapter takes no base URL or fetch)",
      },
    ],
    notes: [
      "launch  +1  mkdir creates the workspace directory, so commands can run in it before any file is written",
      "reads   +1 each  a `realpath -m` command refuses paths that leave the workspace through a symlink;",
      "                 skipped while no command has run in a sandbox this runtime launched (the write above)",
      "destroy +1  a listing after the delete proves the sandbox is gone (verified cleanup)",
    ],
  });
  assert.deepEqual(emulator.unknownRoutes, []);
  assert.equal(emulator.liveSandboxes().length, 0);
} finally {
  await emulator.stop();
}
