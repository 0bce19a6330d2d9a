// Round trips of the standard workload through DaytonaRuntime and the real Daytona SDK (the one its
// loader finds first: @daytona/sdk), counted by the Daytona emulator from @sandport/testkit (see workload.mjs).
import assert from "node:assert/strict";
import { countRoundTrips, loadBuilt } from "./workload.mjs";

const { DaytonaRuntime } = await loadBuilt("daytona");
const { startDaytonaEmulator } = await loadBuilt("testkit", "emulators/daytona");

const emulator = await startDaytonaEmulator();
try {
  const runtime = new DaytonaRuntime({
    apiKey: emulator.apiKey,
    apiUrl: emulator.apiUrl,
    target: emulator.target,
    owner: "round-trip-count",
  });
  await countRoundTrips({
    title: "DaytonaRuntime (real @daytona/sdk 0.216 against the Daytona emulator)",
    runtime,
    routes: () => emulator.requests.map((request) => request.route),
    // Create (answered once started), one bulk upload, three executes, one bulk download of both files, delete.
    apiMinimum: 7,
    peers: [
      {
        name: "ComputeSDK 4.1.4 (@computesdk/daytona 1.7.32, which pins @daytonaio/sdk 0.192.0)",
        requests: 29,
        source:
          "counted once, outside this repository, against a local fake of the Daytona API (pointed at it through DAYTONA_API_URL); every file operation is a command, a mkdir first",
      },
    ],
    notes: [
      "launch  +1  createFolder makes the workspace directory, so commands can run in it before any file is written",
      "reads   +3  the port reads one file per call (a second download), and each read is preceded by a",
      "            `realpath -m` command that refuses paths leaving the workspace through a symlink (commands ran)",
      "destroy +2  GETs after the DELETE until the sandbox is gone (verified cleanup); the first one finds it destroying",
    ],
  });
  assert.deepEqual(emulator.unknownRoutes, []);
  assert.equal(emulator.liveSandboxes().length, 0);
} finally {
  await emulator.stop();
}
