// Round trips of the standard workload through Agent37Runtime over real fetch, counted by the Agent37
// emulator from @sandport/testkit (see workload.mjs): the hosting plane and each instance's URL.
import { benchProvider, loadBuilt } from "./workload.mjs";

const { startAgent37Emulator } = await loadBuilt("testkit", "emulators/agent37");

await benchProvider({
  adapter: "Agent37",
  title: "Agent37Runtime (fetch against the Agent37 emulator)",
  start: () => startAgent37Emulator(),
  runtime: async (load, emulator) =>
    new (await load("agent37")).Agent37Runtime({
      apiKey: emulator.apiKey,
      baseUrl: emulator.baseUrl,
      owner: "round-trip-count",
    }),
  minimum: {
    launch: [1, "POST /v1/instances answers with the running instance and its URL"],
    write: [20, "one PUT files/content per file on the instance URL (no batch upload)"],
    exec: [3, "one exec per command: it answers with the output and the exit code"],
    read: [2, "one GET files/content per file"],
    destroy: [1, "DELETE /v1/instances/{id}"],
  },
  notes: [
    "write   −19 one exec takes every file, as one archive on its stdin",
    "reads   ±0  one command resolves the path, refuses one that leaves the workspace through a symlink, and prints the file (base64, up to 256 KiB)",
    "destroy +1  a GET after the DELETE proves the instance is gone (verified cleanup)",
  ],
});
