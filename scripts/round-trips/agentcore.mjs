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
    "launch  +1  one executeCommand creates the workspace and writes the labels file (ownership) and the launch env",
    "reads   +1 each  a `realpath -m` command refuses paths that leave the workspace through a symlink;",
    "                 skipped while no command has run in a session this runtime launched (the write above)",
    "destroy +1  a Get after the Stop proves the session TERMINATED (verified cleanup)",
  ],
});
