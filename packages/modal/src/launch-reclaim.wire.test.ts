// A Modal launch whose outcome is unknown, through the real modal SDK and the Modal emulator: cut off
// by its deadline (the SDK cancels the create with gRPC status 4), by an abort, or by a connection
// dropped after the create was made, it leaves no sandbox once settle() returns.
import { startModalEmulator } from "@sandport/testkit/emulators/modal";
import { describeLaunchReclaim } from "@sandport/testkit/faults";
import { emulatorOptions } from "../test/emulated.js";
import { ModalRuntime } from "./modal-runtime.js";

describeLaunchReclaim({
  name: "ModalRuntime (real modal SDK → Modal emulator)",
  start: async () => {
    const emulator = await startModalEmulator();
    const options = { ...emulatorOptions(emulator), owner: "reclaim-tests" };
    return {
      emulator,
      createRoute: "rpc modal.client.ModalClient/SandboxCreateV2",
      runtime: new ModalRuntime(options),
      runtimeAt: (url) => new ModalRuntime({ ...options, serverUrl: url }),
    };
  },
});
