// The shared conformance suite through Agent37Runtime over real fetch, against
// the Agent37 emulator from @sandport/testkit (the hosting plane and each
// instance's URL, every instance a real local sandbox).

import { describeRuntimeConformance } from "@sandport/testkit/conformance";
import { startAgent37Emulator } from "@sandport/testkit/emulators/agent37";
import { emulatorOptions } from "../test/emulated.js";
import { Agent37Runtime } from "./agent37-runtime.js";
import type { Agent37RuntimeOptions } from "./options.js";

describeRuntimeConformance({
  name: "Agent37Runtime (fetch → Agent37 emulator)",
  createRuntime: async () => {
    const emulator = await startAgent37Emulator();
    const options: Agent37RuntimeOptions = { ...emulatorOptions(emulator), owner: "conformance" };
    return {
      runtime: new Agent37Runtime(options),
      reopen: () => new Agent37Runtime(options),
      cleanup: () => emulator.stop(),
      requestCount: () => emulator.countRequests(),
    };
  },
  // Instance ids are 10 lowercase alphanumerics: the suite's default unknown id is not one.
  unknownSandboxId: "a37nosuch0",
  timeouts: { promptMs: 3_000 },
});
