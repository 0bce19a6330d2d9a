import type { DeclaredCapabilities } from "@sandport/core";
import { remoteCapabilities } from "@sandport/core/adapter";

/**
 * What `E2BRuntime` declares beyond its methods. Structural capabilities
 * (reattach, labelSearch, asyncExec, streaming, fileOps, interactive, ports)
 * follow from the methods it has:
 *
 * - `interactive` (`spawn`): `commands.run` with `stdin: true`, then
 *   `commands.sendStdin` and `commands.closeStdin` (envd `SendInput`,
 *   `CloseStdin`). `closeStdin` needs e2b SDK 2.13 and a sandbox envd of
 *   0.5.2 or later: elsewhere it is refused `UNSUPPORTED` and only `kill()`
 *   ends the command (and before 2.13 the SDK sends stdin as text, so bytes
 *   that are not UTF-8 are refused too).
 * - `ports` (`portEndpoint`): E2B needs no declaration, every port a server
 *   listens on is reachable, so `LaunchSpec.ports` is validated and otherwise
 *   unused; the one limit is envd's own port 49983, refused with
 *   `INVALID_REQUEST` before any request. A sandbox launched with
 *   `allowPublicTraffic: false` answers only requests carrying its traffic
 *   access token, which the endpoint's headers carry.
 *
 * The rest:
 *
 * - `verifiedCleanup: true`: `destroy` resolves only after the provider reports
 *   the sandbox not found, and rejects `DESTROY_UNVERIFIED` otherwise.
 * - `lifecycle: "unknown"`: `stop`/`start` call E2B's own pause and resume
 *   (`POST /sandboxes/{id}/pause`, `connect`), and the wire tests run them
 *   against the emulator; whether the real service resumes every sandbox
 *   faithfully is left to a live canary's evidence.
 * - `warmLease: "unknown"`: an idle sandbox can be found by labels and reused,
 *   but its fixed deadline may end it in between; awaits a live canary.
 * - `neverIdle: "unknown"`: E2B documents no idle reaper, only the deadline; unobserved.
 * - modes: `outputStreams: "separate"` (the SDK delivers stdout and stderr
 *   apart); `lifetime: "deadline"` (the lifetime is always sent and the
 *   timeout action is always `kill`); `isolation: "microvm"` (E2B runs each
 *   sandbox in a Firecracker microVM); `filesystem: "unknown"` (E2B documents
 *   that pause keeps the filesystem; the emulator keeps it by construction, so
 *   only a live run can prove it).
 * - `detachedLaunch` is `unsupported`: E2B's create answers only once the sandbox runs.
 * - `binaryOutput: "not-exposed"`: envd streams a command's output as raw
 *   bytes, but the SDK (2.x) decodes every chunk with a `TextDecoder` before
 *   `onStdout` / `onStderr` see it, and offers no byte callback for commands
 *   (its only raw path, `onPty`, runs the command on a terminal, which
 *   rewrites line ends, echoes input and merges stderr). Output events carry
 *   the text's UTF-8, so bytes that are not UTF-8 arrive as U+FFFD.
 * - `pty` (structural): `openTerminal` runs the program on envd's terminal (the SDK's `pty`),
 *   `exec`ed from the login shell `pty.create` starts; see `terminal.ts`.
 *
 * - `fork: "not-exposed"`: E2B's `Sandbox.fork` (`POST /sandboxes/{id}/fork`)
 *   pauses the source briefly, saves it with its memory and boots the forks
 *   from that (the emulator serves it, files only). Its request takes no
 *   metadata: E2B gives each fork its source's whole metadata, and SDK 2.51
 *   has no call that changes a sandbox's metadata afterwards. A fork would
 *   so carry its source's launch key (which the port forbids: a launch key
 *   names one sandbox) and could not take labels of its own, so the port's
 *   `fork` is not offered. `snapshot` then `launch({ from })` copies a
 *   sandbox in two calls, with labels and a key of its own.
 * - `snapshots` (structural): `snapshot` is E2B's own (`POST
 *   /sandboxes/{id}/snapshots`): E2B pauses the sandbox briefly, saves its disk
 *   and memory, and resumes it, so the source keeps running (the port's
 *   meaning); `contents: "filesystem+memory"`, E2B's default full snapshot
 *   (the SDK 2.51 sends no mode). `launch({ from })` creates the sandbox with
 *   the snapshot's id as its template. E2B keeps no metadata on a snapshot,
 *   so its owner (a digest), creation time, source and labels travel in its
 *   name (`snapshot-name.ts`): labels that would make the name longer than
 *   190 characters are refused `UNSUPPORTED`, and a snapshot whose name is not
 *   this owner's is never listed, deleted (`FOREIGN_SANDBOX`) or launched from
 *   (`NOT_FOUND`), all before any request.
 * - `stopKeeps: "unknown"`: what survives `stop` then `start` (files, processes) waits for
 *   live evidence (the canary's `stopKeeps` probe; `lifecycle.stop-keeps` then proves a declared value).
 *
 * - `networkPolicy: "domains"`: `"all"` and `"none"` are `allowInternetAccess`; an allow
 *   list is E2B's egress rules, `network.allowOut` with `denyOut: ["0.0.0.0/0"]` (and
 *   `allowInternetAccess: false`, the same deny-all), see `network-plan.ts`. Domains, `*.`
 *   wildcards (any name below, not the name itself, as E2B matches them) and IPv4 ranges
 *   are sent as written; a domain with a `:port` and an IPv6 range are refused
 *   (`UNSUPPORTED`, naming the entry). E2B filters names only for HTTP on port 80 (the
 *   `Host` header) and TLS on port 443 (SNI): a listed name on another port is reached
 *   only if its address is in a listed range, so a domain entry allows less than the
 *   port's "every port", never more. When the list names a domain, E2B also allows its
 *   nameserver 8.8.8.8 so that names resolve.
 * - `memoryLimit`, `cpuLimit`, `processLimit`, `diskLimit`: the launch refuses every `resources` limit (`UNSUPPORTED`): E2B
 *   takes CPU and memory from the template.
 */
export const e2bCapabilities: DeclaredCapabilities = remoteCapabilities({
  lifecycle: "unknown",
  neverIdle: "unknown",
  binaryOutput: "not-exposed",
  memoryLimit: "unsupported",
  cpuLimit: "unsupported",
  processLimit: "unsupported",
  diskLimit: "unsupported",
  modes: {
    outputStreams: "separate",
    filesystem: "unknown",
    lifetime: "deadline",
    isolation: "microvm",
    networkPolicy: "domains",
    stopKeeps: "unknown",
  },
  absent: { detachedLaunch: "unsupported", fork: "not-exposed" },
});
