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
    "launch  +1  one exec creates the workspace and state directories",
    "reads   +1 each  a `realpath -m` command refuses paths that leave the workspace through a symlink;",
    "                 skipped while no command has run in an instance this runtime launched (the writes above)",
    "destroy +1  a GET after the DELETE proves the instance is gone (verified cleanup)",
  ],
});
