// Round trips of the standard workload through AgentCoreRuntime and the real
// @aws-sdk/client-bedrock-agentcore, counted by the AgentCore emulator from @sandport/testkit (see workload.mjs).
import { benchProvider, loadBuilt } from "./workload.mjs";

const { startAgentCoreEmulator } = await loadBuilt("testkit", "emulators/agentcore");

await benchProvider({
  adapter: "AWS AgentCore Code Interpreter",
  title: "AgentCoreRuntime (real @aws-sdk/client-bedrock-agentcore against the AgentCore emulator)",
  start: () => startAgentCoreEmulator(),
  runtime: async (load, emulator) =>
    new (await load("agentcore")).AgentCoreRuntime({
      region: emulator.region,
      endpoint: emulator.endpoint,
      accessKeyId: "AKIDROUNDTRIPS",
      secretAccessKey: "round-trips",
      workingDirectory: emulator.workingDirectory,
      owner: "round-trip-count",
    }),
  minimum: {
    launch: [1, "StartCodeInterpreterSession answers with the ready session"],
    write: [1, "one writeFiles Invoke takes every file"],
    exec: [3, "one executeCommand Invoke per command: its stream carries the output and the exit code"],
    read: [2, "one readFiles Invoke per readFile (it takes a list, but the port reads one file a call)"],
    destroy: [1, "StopCodeInterpreterSession"],
  },
  notes: [
    "launch  ±0  the Start only: W's launch has no labels or env, so the session name carries the launch key (with the",
    "            owner, all its labels) and the first command or write makes the workspace; a launch with labels or env",
    "            sends one executeCommand after it for the labels file and the env (+1)",
    "reads   ±0  one command resolves the path, refuses one that leaves the workspace through a symlink, and prints the file (base64, up to 256 KiB)",
    "destroy +1  a Get after the Stop proves the session TERMINATED (verified cleanup)",
  ],
});
