// The shared conformance suite through FreestyleRuntime and the real freestyle
// SDK, against the Freestyle emulator from @sandport/testkit (the /v5 routes,
// every VM a real local sandbox). The emulator maps the VM home directory, so
// commands start there as on a VM. Its default backend cannot keep a VM off
// the network everywhere (only as root), so the runtime launches with network: true here (launch.test.ts
// shows the default sends no firewall rule; the emulator's own tests show a VM
// without one is offline over a namespaces backend).

import { conformanceEgressResolver, describeRuntimeConformance } from "@sandport/testkit/conformance";
import { startFreestyleEmulator } from "@sandport/testkit/emulators/freestyle";
import { namespacesSkipReason } from "@sandport/testkit/fakes";
import { emulatorOptions, HOME } from "../test/emulated.js";
import { FreestyleRuntime } from "./freestyle-runtime.js";
import type { FreestyleRuntimeOptions } from "./options.js";

// Without bubblewrap the emulator's backend cannot enforce a firewall of ranges (the create fails).
const unisolated = await namespacesSkipReason();

describeRuntimeConformance({
  name: "FreestyleRuntime (real freestyle SDK → Freestyle emulator)",
  createRuntime: async () => {
    const emulator = await startFreestyleEmulator({
      workspaceDirectory: HOME,
      egressResolver: conformanceEgressResolver,
    });
    const options: FreestyleRuntimeOptions = { ...emulatorOptions(emulator), owner: "conformance" };
    return {
      runtime: new FreestyleRuntime(options),
      egressProbe: true,
      reopen: () => new FreestyleRuntime(options),
      cleanup: () => emulator.stop(),
      requestCount: () => emulator.countRequests(),
    };
  },
  timeouts: { promptMs: 3_000 },
  ...(unisolated === undefined
    ? {}
    : {
        skip: {
          "lifecycle.network-allow": `${unisolated} (the emulator enforces a firewall of ranges with the backend's allow list, which needs bubblewrap)`,
        },
      }),
});
