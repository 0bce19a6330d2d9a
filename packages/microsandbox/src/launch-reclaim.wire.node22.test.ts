// A microsandbox launch whose outcome is unknown, through the real microsandbox SDK and the
// microsandbox emulator (cloud backend): cut off by its deadline, by an abort, or by a connection
// dropped after the create was made, it leaves no sandbox once settle() returns; an endpoint that
// refuses the connection sends nothing.
import { startMicrosandboxEmulator } from "@sandport/testkit/emulators/microsandbox";
import { describeLaunchReclaim } from "@sandport/testkit/faults";
import { cloudOf } from "../test/emulated.js";
import { MicrosandboxRuntime } from "./microsandbox-runtime.js";

describeLaunchReclaim({
  name: "MicrosandboxRuntime (real microsandbox SDK → microsandbox emulator)",
  start: async () => {
    const emulator = await startMicrosandboxEmulator();
    const options = { backend: cloudOf(emulator), owner: "reclaim-tests" };
    return {
      emulator,
      createRoute: "POST /v1/sandboxes",
      unreachableLooksLikeReset:
        "the microsandbox SDK reports a refused connection and one reset after the request left alike " +
        "(HttpError 'error sending request for url'), so a failed create's outcome stays unknown",
      runtime: new MicrosandboxRuntime(options),
      runtimeAt: (url) =>
        new MicrosandboxRuntime({ ...options, backend: { kind: "cloud", url, apiKey: emulator.apiKey } }),
    };
  },
});
