// The shared conformance suite through AgentCoreRuntime and the real
// @aws-sdk/client-bedrock-agentcore, against the AgentCore emulator from
// @sandport/testkit (the session routes and InvokeCodeInterpreter as an event
// stream, every session a real local sandbox).

import { describeRuntimeConformance } from "@sandport/testkit/conformance";
import { startAgentCoreEmulator } from "@sandport/testkit/emulators/agentcore";
import { emulatorOptions } from "../test/emulated.js";
import { AgentCoreRuntime } from "./agentcore-runtime.js";
import type { AgentCoreRuntimeOptions } from "./options.js";

describeRuntimeConformance({
  name: "AgentCoreRuntime (real @aws-sdk/client-bedrock-agentcore → AgentCore emulator)",
  createRuntime: async () => {
    const emulator = await startAgentCoreEmulator();
    const options: AgentCoreRuntimeOptions = { ...emulatorOptions(emulator), owner: "conformance" };
    return {
      runtime: new AgentCoreRuntime(options),
      reopen: () => new AgentCoreRuntime(options),
      cleanup: () => emulator.stop(),
      requestCount: () => emulator.countRequests(),
    };
  },
  timeouts: { promptMs: 3_000 },
  unknownSandboxId: "sandportconformancenosuchsession",
});
