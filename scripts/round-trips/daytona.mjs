// Round trips of the standard workload through DaytonaRuntime and the real Daytona SDK (the one its
// loader finds first: @daytona/sdk), counted by the Daytona emulator from @sandport/testkit (see workload.mjs).
import { computeSdkDaytona } from "./peers.mjs";
import { benchProvider, loadBuilt } from "./workload.mjs";

const { startDaytonaEmulator } = await loadBuilt("testkit", "emulators/daytona");

await benchProvider({
  adapter: "Daytona",
  title: "DaytonaRuntime (real @daytona/sdk 0.216 against the Daytona emulator)",
  start: () => startDaytonaEmulator(),
  runtime: async (load, emulator) =>
    new (await load("daytona")).DaytonaRuntime({
      apiKey: emulator.apiKey,
      apiUrl: emulator.apiUrl,
      target: emulator.target,
      owner: "round-trip-count",
    }),
  minimum: {
    launch: [1, "POST /api/sandbox answers once the sandbox is started"],
    write: [1, "the toolbox's files/bulk-upload takes every file in one multipart body"],
    exec: [3, "one process/execute per command: it answers with the output and the exit code"],
    read: [2, "one download per readFile (files/bulk-download takes a list, but the port reads one file a call)"],
    destroy: [1, "DELETE /api/sandbox/:id"],
  },
  measurePeers: async (emulator) => [await computeSdkDaytona(emulator)],
  peers: [
    {
      name: "ComputeSDK 4.1.4 (@computesdk/daytona 1.7.32, which pins @daytonaio/sdk 0.192.0)",
      short: "ComputeSDK",
      requests: 29,
      source:
        "counted once, outside this repository, against a local fake of the Daytona API (pointed at it through DAYTONA_API_URL); every file operation is a command, a mkdir first",
    },
  ],
  notes: [
    "launch  ±0  no createFolder: exec in the workspace starts in /home/daytona and makes and enters ./workspace in its own script (a session from $HOME), as do the adapter's scripts",
    "reads   ±0  one command resolves the path, refuses one that leaves the workspace through a symlink, and prints the file (base64, up to 256 KiB)",
    "destroy +1  one GET after the DELETE proves the sandbox gone (verified cleanup): the DELETE answers while it is destroying,",
    "            so the GET waits as long as this runtime's deletes have taken (250 ms before the first); a slower delete gets more GETs",
  ],
});
