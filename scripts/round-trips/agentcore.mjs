// Round trips of the standard workload through AgentCoreRuntime and the real
// @aws-sdk/client-bedrock-agentcore, counted by the AgentCore emulator from @sandport/testkit (see workload.mjs).
import assert from "node:assert/strict";
import { countRoundTrips, loadBuilt } from "./workload.mjs";

const { AgentCoreRuntime } = await loadBuilt("agentcore");
const { startAgentCoreEmulator } = await loadBuilt("testkit", "emulators/agentcore");

const emulator = await startAgentCoreEmulator();
try {
  const runtime = new AgentCoreRuntime({
    region: emulator.region,
    endpoint: emulator.endpoint,
    accessKeyId: "AKIDROUNDTRIPS",
    secretAccessKey: "round-trips",
    workingDirectory: emulator.workingDirectory,
    owner: "round-trip-count",
  });
  await countRoundTrips({
    title: "AgentCoreRuntime (real @aws-sdk/client-bedrock-agentcore against the AgentCore emulator)",
    runtime,
    routes: () => emulator.requests.map((request) => request.route),
    // Start, one writeFiles Invoke for the 20 files, 3 executeCommand Invokes, one readFiles Invoke
    // per file (the port reads one file a call; readFiles takes a list), Stop.
    apiMinimum: 8,
    notes: [
      "launch  +1  one executeCommand creates the workspace and writes the labels file (ownership) and the launch env",
      "reads   +1 each  a `realpath -m` command refuses paths that leave the workspace through a symlink;",
      "                 skipped while no command has run in a session this runtime launched (the write above)",
      "destroy +1  a Get after the Stop proves the session TERMINATED (verified cleanup)",
    ],
  });
  assert.deepEqual(emulator.unknownRoutes, []);
  assert.equal(emulator.liveSandboxes().length, 0);
} finally {
  await emulator.stop();
}
