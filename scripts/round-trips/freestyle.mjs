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
    "write   −19 one command takes every file, as one archive on its stdin",
    "reads   ±0  one command resolves the path, refuses one that leaves the workspace through a symlink, and prints the file (base64, up to 256 KiB)",
    "destroy +1  a GET after the DELETE proves the VM is gone (verified cleanup)",
  ],
});
