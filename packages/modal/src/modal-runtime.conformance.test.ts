// The shared conformance suite through ModalRuntime and the real modal SDK,
// against the Modal emulator from @sandport/testkit (control plane and task
// command router over gRPC, sandboxes running for real on a LocalRuntime).

import { conformanceEgressResolver, describeRuntimeConformance } from "@sandport/testkit/conformance";
import { startModalEmulator } from "@sandport/testkit/emulators/modal";
import { namespacesSkipReason } from "@sandport/testkit/fakes";
import { emulatorOptions } from "../test/emulated.js";
import { ModalRuntime } from "./modal-runtime.js";

// Without bubblewrap the emulator's backend cannot enforce an outbound allowlist (the create fails).
const unisolated = await namespacesSkipReason();

describeRuntimeConformance({
  name: "ModalRuntime (real modal SDK → Modal emulator)",
  createRuntime: async () => {
    const emulator = await startModalEmulator({ egressResolver: conformanceEgressResolver });
    const options = { ...emulatorOptions(emulator), owner: "conformance" };
    return {
      runtime: new ModalRuntime(options),
      egressProbe: true,
      reopen: () => new ModalRuntime(options),
      cleanup: () => emulator.stop(),
      requestCount: () => emulator.countRequests(),
    };
  },
  // Well-formed for Modal (sb- and a ULID), naming no sandbox.
  unknownSandboxId: "sb-01ARZ3NDEKTSV4RRFFQ69G5FAV",
  timeouts: { promptMs: 3_000 },
  ...(unisolated === undefined
    ? {}
    : {
        skip: {
          "lifecycle.network-allow": `${unisolated} (the emulator enforces an outbound allowlist with the backend's allow list, which needs bubblewrap)`,
        },
      }),
});
