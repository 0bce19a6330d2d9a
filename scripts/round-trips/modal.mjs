// Round trips of the standard workload through ModalRuntime and the real modal SDK (Modal Labs, 0.11.x),
// counted by the Modal emulator from @sandport/testkit (see workload.mjs). Every gRPC call is one round trip,
// on the control plane and on the task command router alike.
import assert from "node:assert/strict";
import { countRoundTrips, loadBuilt } from "./workload.mjs";

const { ModalRuntime } = await loadBuilt("modal");
const { startModalEmulator } = await loadBuilt("testkit", "emulators/modal");

const emulator = await startModalEmulator();
try {
  const runtime = new ModalRuntime({
    tokenId: emulator.tokenId,
    tokenSecret: emulator.tokenSecret,
    serverUrl: emulator.url,
    workspaceRoot: emulator.workspacePath,
    maxLifetimeMs: 600_000,
    owner: "round-trip-count",
  });
  const short = (route) =>
    route
      .replace("rpc modal.client.ModalClient/", "")
      .replace("rpc modal.task_command_router.TaskCommandRouter/", "router ");
  await countRoundTrips({
    title: "ModalRuntime (real modal SDK against the Modal emulator)",
    runtime,
    routes: () => emulator.requests.map((request) => short(request.route)),
    // What the SDK itself needs for the workload, with no adapter of its own: the first create (auth token,
    // App, environment, image, create: 5), 20 file writes through its file helper (an exec, its stdin stream,
    // its wait: 3 each), 3 execs (start, two output streams, wait: 4 each), 2 file reads (start, wait,
    // stdout: 3 each), one terminate.
    apiMinimum: 5 + 20 * 3 + 3 * 4 + 2 * 3 + 1,
    notes: [
      "execs   +1 each  stdin's end of file: a command reads empty stdin, never waits on an open one",
      "reads   +5 each  a `realpath -m` command (an exec) refuses paths that leave the workspace through a",
      "                 symlink; skipped while no command has run in a sandbox this runtime launched (the writes)",
      "destroy +1       a poll after the terminate proves the sandbox finished (verified cleanup)",
    ],
  });
  assert.deepEqual(emulator.unknownRoutes, []);
  assert.equal(emulator.liveSandboxes().length, 0);
} finally {
  await emulator.stop();
}
