// Round trips of the standard workload through E2BRuntime and the real e2b SDK, counted by the
// E2B emulator from @sandport/testkit (see workload.mjs).
import assert from "node:assert/strict";
import { countRoundTrips, loadBuilt } from "./workload.mjs";

const { E2BRuntime } = await loadBuilt("e2b");
const { startE2BEmulator } = await loadBuilt("testkit", "emulators/e2b");

const emulator = await startE2BEmulator();
try {
  const runtime = new E2BRuntime({
    apiKey: emulator.apiKey,
    apiUrl: emulator.apiUrl,
    sandboxUrl: emulator.sandboxUrl,
    domain: emulator.domain,
    owner: "round-trip-count",
  });
  await countRoundTrips({
    title: "E2BRuntime (real e2b SDK against the E2B emulator)",
    runtime,
    routes: () => emulator.requests.map((request) => request.route),
    // Create, one upload of the 20 files, three process starts, two reads, one delete.
    apiMinimum: 8,
    peers: [
      {
        name: "ComputeSDK 4.1.4 (@computesdk/e2b 1.7.52)",
        requests: 28,
        source:
          "counted once, outside this repository, against a local fake of the E2B API (pointed at it through E2B_API_URL and E2B_SANDBOX_URL, the adapter's only route); one request per file written, a connect before the delete",
      },
    ],
    notes: [
      "launch  +1  MakeDir creates the workspace directory, so commands can run in it before any file is written",
      "reads   +1 each  a `realpath -m` command refuses paths that leave the workspace through a symlink;",
      "                 skipped while no command has run in a sandbox this runtime launched (the write above)",
      "destroy +1  a GET after the DELETE proves the sandbox is gone (verified cleanup)",
    ],
  });
  assert.deepEqual(emulator.unknownRoutes, []);
  assert.equal(emulator.liveSandboxes().length, 0);
} finally {
  await emulator.stop();
}
