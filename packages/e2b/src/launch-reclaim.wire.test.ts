// An E2B launch whose outcome is unknown, through the real e2b SDK and the E2B emulator: cut off by
// its deadline, by an abort, or by a connection dropped after the create was made, it leaves no
// sandbox once settle() returns; an endpoint that refuses the connection sends nothing.
import { startE2BEmulator } from "@sandport/testkit/emulators/e2b";
import { describeLaunchReclaim } from "@sandport/testkit/faults";
import { E2BRuntime } from "./e2b-runtime.js";

describeLaunchReclaim({
  name: "E2BRuntime (real e2b SDK → E2B emulator)",
  start: async () => {
    const emulator = await startE2BEmulator();
    const options = {
      apiKey: emulator.apiKey,
      apiUrl: emulator.apiUrl,
      sandboxUrl: emulator.sandboxUrl,
      domain: emulator.domain,
      owner: "reclaim-tests",
    };
    return {
      emulator,
      createRoute: "POST /v2/sandboxes",
      runtime: new E2BRuntime(options),
      runtimeAt: (url) => new E2BRuntime({ ...options, apiUrl: url }),
    };
  },
});
