// Round trips of the standard workload through VercelRuntime and the real @vercel/sandbox SDK,
// counted by the Vercel emulator from @sandport/testkit (see workload.mjs).
import { benchProvider, loadBuilt } from "./workload.mjs";

const { startVercelEmulator } = await loadBuilt("testkit", "emulators/vercel");

await benchProvider({
  adapter: "Vercel Sandbox",
  title: "VercelRuntime (real @vercel/sandbox SDK against the Vercel emulator)",
  start: () => startVercelEmulator(),
  runtime: async (load, emulator) =>
    new (await load("vercel")).VercelRuntime({
      ...emulator.credentials,
      fetch: emulator.fetch,
      owner: "round-trip-count",
    }),
  minimum: {
    launch: [1, "POST /v3/sandboxes answers with the running sandbox"],
    write: [1, "POST …/fs/write takes one gzipped tar of every file"],
    exec: [3, "one POST …/cmd per command with wait: its answer streams the output and the exit"],
    read: [2, "one POST …/fs/read per file"],
    destroy: [1, "DELETE /v2/sandboxes/:name"],
  },
  peers: [
    {
      name: "ComputeSDK 4.1.4 (@computesdk/vercel 1.7.31, which pins @vercel/sandbox 1.10.2)",
      short: "ComputeSDK",
      requests: 31,
      source:
        "counted once, outside this repository, against a local fake of the Vercel API, reached only by replacing the global fetch (the adapter takes no base URL or fetch)",
    },
  ],
  notes: [
    "launch  ±0  no mkdir: a command in the workspace starts in the home directory and makes and enters ./workspace in its own sh, as do the adapter's scripts",
    "reads   ±0  one command resolves the path, refuses one that leaves the workspace through a symlink, and prints the file (base64, up to 256 KiB)",
    "destroy +1  a listing after the delete proves the sandbox is gone (verified cleanup)",
  ],
});
