// A Daytona launch whose outcome is unknown, through the real Daytona SDK and the Daytona emulator:
// cut off by its deadline, by an abort, or by a connection dropped after the create was made, it
// leaves no sandbox once settle() returns; an endpoint that refuses the connection sends nothing.
import { startDaytonaEmulator } from "@sandport/testkit/emulators/daytona";
import { describeLaunchReclaim } from "@sandport/testkit/faults";
import { emulatorOptions } from "../test/emulated.js";
import { DaytonaRuntime } from "./daytona-runtime.js";

describeLaunchReclaim({
  name: "DaytonaRuntime (real Daytona SDK → Daytona emulator)",
  start: async () => {
    const emulator = await startDaytonaEmulator();
    const options = { ...emulatorOptions(emulator), owner: "reclaim-tests" };
    return {
      emulator,
      createRoute: "POST /api/sandbox",
      goneStates: ["destroying"],
      runtime: new DaytonaRuntime(options),
      runtimeAt: (url) => new DaytonaRuntime({ ...options, apiUrl: `${url}/api` }),
    };
  },
});
