// An Agent37 launch whose outcome is unknown, over real fetch and the emulator:
// cut off by its deadline, by an abort, or by a connection dropped after the
// create was made, it leaves no instance once settle() returns (found again by
// its launch key in the owner's metadata, over the whole instance list); an
// endpoint that refuses the connection sends nothing.
import { startAgent37Emulator } from "@sandport/testkit/emulators/agent37";
import { describeLaunchReclaim } from "@sandport/testkit/faults";
import { emulatorOptions } from "../test/emulated.js";
import { Agent37Runtime } from "./agent37-runtime.js";

describeLaunchReclaim({
  name: "Agent37Runtime (fetch → Agent37 emulator)",
  start: async () => {
    const emulator = await startAgent37Emulator();
    const options = { ...emulatorOptions(emulator), owner: "reclaim-tests" };
    return {
      emulator,
      createRoute: "POST /v1/instances",
      runtime: new Agent37Runtime(options),
      runtimeAt: (url) => new Agent37Runtime({ ...options, baseUrl: url }),
    };
  },
});
