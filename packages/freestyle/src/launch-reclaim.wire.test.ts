// A Freestyle launch whose outcome is unknown, through the real freestyle SDK and the Freestyle
// emulator: cut off by its deadline, by an abort, or by a connection dropped after the create was
// made, it leaves no VM once settle() returns; an endpoint that refuses the connection sends nothing.
import { startFreestyleEmulator } from "@sandport/testkit/emulators/freestyle";
import { describeLaunchReclaim } from "@sandport/testkit/faults";
import { emulatorOptions, HOME } from "../test/emulated.js";
import { FreestyleRuntime } from "./freestyle-runtime.js";

describeLaunchReclaim({
  name: "FreestyleRuntime (real freestyle SDK → Freestyle emulator)",
  start: async () => {
    const emulator = await startFreestyleEmulator({ workspaceDirectory: HOME });
    const options = { ...emulatorOptions(emulator), owner: "reclaim-tests" };
    return {
      emulator,
      createRoute: "POST /v5/vms",
      runtime: new FreestyleRuntime(options),
      runtimeAt: (url) => new FreestyleRuntime({ ...options, baseUrl: url }),
    };
  },
});
