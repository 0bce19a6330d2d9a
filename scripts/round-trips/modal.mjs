// Round trips of the standard workload through ModalRuntime and the real modal SDK (Modal Labs, 0.11.x),
// counted by the Modal emulator from @sandport/testkit (see workload.mjs). Every gRPC call is one round trip,
// on the control plane and on the task command router alike.
import { benchProvider, loadBuilt } from "./workload.mjs";

const { startModalEmulator } = await loadBuilt("testkit", "emulators/modal");

const short = (route) =>
  route
    .replace("rpc modal.client.ModalClient/", "")
    .replace("rpc modal.task_command_router.TaskCommandRouter/", "router ");

await benchProvider({
  adapter: "Modal",
  title: "ModalRuntime (real modal SDK against the Modal emulator)",
  start: () => startModalEmulator(),
  runtime: async (load, emulator) =>
    new (await load("modal")).ModalRuntime({
      tokenId: emulator.tokenId,
      tokenSecret: emulator.tokenSecret,
      serverUrl: emulator.url,
      workspaceRoot: emulator.workspacePath,
      maxLifetimeMs: 600_000,
      owner: "round-trip-count",
    }),
  routes: (emulator) => emulator.requests.map((request) => short(request.route)),
  // What the SDK itself needs for the workload, with no adapter of its own.
  minimum: {
    launch: [5, "a first create: the auth token, the App, the environment, the image, SandboxCreate"],
    write: [60, "the SDK's file helper per file: an exec, its stdin stream, its wait (3 each; no batch upload)"],
    exec: [12, "per command: the exec start, its two output streams, its wait (4 each)"],
    read: [6, "the file helper per file: an exec start, its wait, its stdout (3 each)"],
    destroy: [1, "SandboxTerminate"],
  },
  notes: [
    "write   −54 one command takes every file, as one archive on its stdin (6 calls, the helper took 3 a file)",
    "execs   +1 each  stdin's end of file: a command reads empty stdin, never waits on an open one",
    "reads   +2 each  one command (5 calls) resolves the path, refuses a symlink out of the workspace and prints the file,",
    "                 where the file helper takes 3",
    "destroy +1  a poll after the terminate proves the sandbox finished (verified cleanup)",
  ],
});
