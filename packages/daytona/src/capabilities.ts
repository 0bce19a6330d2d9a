import type { DeclaredCapabilities } from "@sandport/core";
import { remoteCapabilities } from "@sandport/core/adapter";

/**
 * What `DaytonaRuntime` declares beyond its methods. Every structural
 * capability follows from the methods it has (reattach, labelSearch,
 * asyncExec, streaming, detachedLaunch, fileOps, interactive, ports, pty,
 * snapshots, fork); the rest:
 *
 * - `snapshots` (structural): `snapshot` is Daytona's own snapshot of a sandbox
 *   (the SDK's `createSnapshot`): the sandbox is `snapshotting` for a moment,
 *   then back in its state, still running (the port's meaning);
 *   `contents: "filesystem"`. `launch({ from })` looks the snapshot up, then
 *   creates the sandbox from it. Daytona keeps no labels on a snapshot, so its
 *   owner (a digest), time, source and labels travel in its name
 *   (`snapshot-name.ts`): a name over 256 characters is refused `UNSUPPORTED`,
 *   and a snapshot not named by this owner is never listed, deleted
 *   (`FOREIGN_SANDBOX`) or launched from (`NOT_FOUND`), before any request.
 *
 * - `fork` (structural): `fork` is Daytona's own fork (the SDK's `Sandbox.fork`,
 *   a copy-on-write clone of the machine: files, and whatever else Daytona's
 *   VM clone keeps), then one label update, since Daytona copies every label
 *   (the launch key too): the fork gets a launch key of its own and the
 *   caller's labels. Daytona forks started VM sandboxes (`linux-vm`,
 *   `windows`) only; a container sandbox, a source not started and one with
 *   a `domainAllowList` (which the fork would not keep) are refused
 *   `UNSUPPORTED` before the fork request. See `fork.ts`.
 *
 * - `verifiedCleanup: true`: `destroy` resolves only after Daytona reports the
 *   sandbox not found (or destroyed), and rejects `DESTROY_UNVERIFIED` otherwise.
 * - `lifecycle: "unknown"`: `stop`/`start` call Daytona's own stop and start
 *   (and `start` proves the sandbox with a real command), and the wire tests
 *   run them against the emulator; whether the service brings every sandbox
 *   back faithfully is left to a live canary's evidence.
 * - `warmLease: "unknown"`: an idle sandbox can be found by labels and reused,
 *   but Daytona may have stopped it meanwhile (`autoStopMinutes`); unobserved live.
 * - `neverIdle: "unknown"`: by default Daytona stops a sandbox after 15 minutes
 *   without activity (`autoStopMinutes`); with 0 it documents no reaper, which
 *   nobody here has observed.
 * - `binaryOutput: "not-exposed"`: the SDK hands output over as decoded text
 *   (a JSON string, or its log WebSocket through a `TextDecoder`), so output
 *   events carry the text's UTF-8.
 * - `pty` (structural): `openTerminal` runs the program on the daemon's PTY session (the SDK's
 *   `createPty`), `exec`ed from the login shell the session starts; see `terminal.ts`.
 * - modes: `outputStreams: "combined"`: `executeCommand` merges stdout and
 *   stderr, so every path (streams, interactive and async commands too, which
 *   run in sessions that could keep them apart) merges them where the command
 *   runs, keeping the order they were written in; `lifetime: "idle-timeout"`:
 *   Daytona ends a sandbox's run by inactivity (`autoStopMinutes`, always
 *   sent), never by a deadline; `filesystem: "unknown"`: Daytona keeps a stopped
 *   sandbox's files, which the emulator does by construction, so only a live
 *   run can prove it; `isolation: "unknown"`: a sandbox is a container or a
 *   VM by its class (see `DaytonaRuntime.sandboxDetails`), not one mode for all.
 * - `stopKeeps: "unknown"`: what survives `stop` then `start` (files, processes) waits for
 *   live evidence (the canary's `stopKeeps` probe; `lifecycle.stop-keeps` then proves a declared value).
 * - `networkPolicy: "domains"`: `networkBlockAll` turns the network off; an
 *   allow list becomes Daytona's `networkAllowList` (IPv4 CIDR ranges) and
 *   `domainAllowList` (names, `*.` wildcards), at most 10 of each; an IPv6
 *   range, a `:port` or more entries are refused (`UNSUPPORTED`, naming the
 *   entry) before any request. Names need an SDK from 0.216 (older ones drop
 *   `domainAllowList`: the sandbox is deleted and the launch refused).
 * - `memoryLimit`, `cpuLimit`, `processLimit`: `memoryMiB` (whole GiB) and `cpus` (whole vCPUs) become the
 *   sandbox's `resources` on create (anything else `UNSUPPORTED`), unseen live: `unknown`; `maxProcesses` is
 *   refused: `unsupported`.
 * - `diskLimit: "unknown"`: `diskMiB` (whole GiB) becomes the sandbox's `disk` on create, unseen live.
 */
export const daytonaCapabilities: DeclaredCapabilities = remoteCapabilities({
  lifecycle: "unknown",
  neverIdle: "unknown",
  binaryOutput: "not-exposed",
  memoryLimit: "unknown",
  cpuLimit: "unknown",
  processLimit: "unsupported",
  diskLimit: "unknown",
  modes: {
    outputStreams: "combined",
    filesystem: "unknown",
    lifetime: "idle-timeout",
    isolation: "unknown",
    networkPolicy: "domains",
    stopKeeps: "unknown",
  },
});
