// An AgentCore launch whose outcome is unknown, through the real SDK and the AgentCore emulator:
// cut off by its deadline, by an abort, or by a connection dropped after the session was started,
// it leaves no session once settle() returns; an endpoint that refuses the connection sends nothing.
import { startAgentCoreEmulator } from "@sandport/testkit/emulators/agentcore";
import { describeLaunchReclaim } from "@sandport/testkit/faults";
import { emulatorOptions } from "../test/emulated.js";
import { AgentCoreRuntime } from "./agentcore-runtime.js";

describeLaunchReclaim({
  name: "AgentCoreRuntime (real @aws-sdk/client-bedrock-agentcore → AgentCore emulator)",
  start: async () => {
    const emulator = await startAgentCoreEmulator();
    // One attempt: the reclaim, not the SDK's retry, must deal with what a lost Start made.
    const options = { ...emulatorOptions(emulator), owner: "reclaim-tests", maxAttempts: 1 };
    return {
      emulator,
      createRoute: "StartCodeInterpreterSession",
      runtime: new AgentCoreRuntime(options),
      runtimeAt: (url) => new AgentCoreRuntime({ ...options, endpoint: url }),
    };
  },
});
