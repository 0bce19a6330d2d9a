// Round trips of the standard workload through E2BRuntime and the real e2b SDK, counted by the
// E2B emulator from @sandport/testkit (see workload.mjs).
import { computeSdkE2B } from "./peers.mjs";
import { benchProvider, loadBuilt } from "./workload.mjs";

const { startE2BEmulator } = await loadBuilt("testkit", "emulators/e2b");

await benchProvider({
  adapter: "E2B",
  title: "E2BRuntime (real e2b SDK against the E2B emulator)",
  start: () => startE2BEmulator(),
  runtime: async (load, emulator) =>
    new (await load("e2b")).E2BRuntime({
      apiKey: emulator.apiKey,
      apiUrl: emulator.apiUrl,
      sandboxUrl: emulator.sandboxUrl,
      domain: emulator.domain,
      owner: "round-trip-count",
    }),
  minimum: {
    launch: [1, "POST /v2/sandboxes answers once the sandbox runs"],
    write: [1, "POST /files takes every file of a multipart body in one upload"],
    exec: [3, "one process Start per command: its stream carries the output and the exit"],
    read: [2, "one GET /files per file"],
    destroy: [1, "DELETE /sandboxes/:id"],
  },
  measurePeers: async (emulator) => [await computeSdkE2B(emulator)],
  peers: [
    {
      name: "ComputeSDK 4.1.4 (@computesdk/e2b 1.7.52)",
      short: "ComputeSDK",
      requests: 28,
      source:
        "counted once, outside this repository, against a local fake of the E2B API (pointed at it through E2B_API_URL and E2B_SANDBOX_URL, the adapter's only route); one request per file written, a connect before the delete",
    },
  ],
  notes: [
    "launch  ±0  no MakeDir: a command in the workspace starts in the user's home and makes and enters ./workspace in its own script, as do the adapter's scripts",
    "reads   ±0  one command resolves the path, refuses one that leaves the workspace through a symlink, and prints the file (base64, up to 256 KiB)",
    "destroy +1  a GET after the DELETE proves the sandbox is gone (verified cleanup)",
  ],
});
