// Round trips of the standard workload through FreestyleRuntime and the real freestyle SDK, counted by the
// Freestyle emulator from @sandport/testkit (see workload.mjs). The emulator maps the VM home directory, as
// the package's own tests do, so commands start there as on a VM.
import { benchProvider, loadBuilt } from "./workload.mjs";

const { startFreestyleEmulator } = await loadBuilt("testkit", "emulators/freestyle");

await benchProvider({
  adapter: "Freestyle",
  title: "FreestyleRuntime (real freestyle SDK against the Freestyle emulator)",
  start: () => startFreestyleEmulator({ workspaceDirectory: "/root" }),
  runtime: async (load, emulator) =>
    new (await load("freestyle")).FreestyleRuntime({
      apiKey: emulator.apiKey,
      baseUrl: emulator.baseUrl,
      fetch: emulator.sdkOptions.fetch,
      // The emulator's default backend cannot take a VM off the network (the runtime's default).
      network: true,
      owner: "round-trip-count",
    }),
  minimum: {
    launch: [1, "POST /v5/vms answers with the running VM"],
    write: [20, "the /v5 API writes one file a call: PUT /v5/vms/:id/fs/write (no batch upload)"],
    exec: [3, "one POST /v5/vms/:id/exec-await per command: it answers with the output and the exit code"],
    read: [2, "one GET /v5/vms/:id/fs/read per file"],
    destroy: [1, "DELETE /v5/vms/:id"],
  },
  notes: [
    "launch  +1  one command creates the workspace directory (and writes the launch env, when there is one)",
    "reads   +1 each  a `realpath -m` command refuses paths that leave the workspace through a symlink;",
    "                 skipped while no command has run in a VM this runtime launched (the writes above)",
    "destroy +1  a GET after the DELETE proves the VM is gone (verified cleanup)",
  ],
});
