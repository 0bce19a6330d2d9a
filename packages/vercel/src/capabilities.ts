import type { DeclaredCapabilities } from "@sandport/core";
import { remoteCapabilities } from "@sandport/core/adapter";

/**
 * What `VercelRuntime` declares beyond its methods. Structural
 * capabilities (reattach, labelSearch, asyncExec, streaming, ports) follow
 * from the methods it has; the rest:
 *
 * - `verifiedCleanup: true`: `destroy` deletes, then resolves only once the
 *   list API no longer has the name (or has it with another creation time),
 *   and rejects `DESTROY_UNVERIFIED` otherwise.
 * - `lifecycle: "unknown"`: `stop` ends the session and `start` resumes the
 *   sandbox (`get` with `resume`); the wire tests run them against the
 *   emulator, and only a live canary can show the service resumes faithfully.
 * - `warmLease: "unknown"`: an idle sandbox can be found by labels and
 *   reused, but its session deadline may stop it in between; awaits a live canary.
 * - `neverIdle: "unsupported"`: every Vercel session has a termination deadline.
 * - `binaryOutput: "unsupported"`: Vercel's command log carries output as JSON
 *   strings, so output events carry the text's UTF-8.
 * - `pty: "not-exposed"`: Vercel opens interactive shells over a WebSocket
 *   (`openInteractive`); this adapter has no `openTerminal`.
 * - modes: `outputStreams: "separate"` (each log line says its stream);
 *   `lifetime: "deadline"` (the session timeout is always sent);
 *   `isolation: "microvm"` (Vercel runs each sandbox in a Firecracker
 *   microVM); `filesystem: "unknown"` (sandboxes are created persistent, so
 *   Vercel keeps the files across `stop` by snapshotting them; the emulator
 *   keeps them by construction, so only a live run can prove it).
 * - absent methods: `interactive` is `unsupported` (Vercel commands have no
 *   stdin); `fileOps` is `not-exposed` (the API writes, reads and makes one
 *   directory; listing, stat and removal exist only as commands, which this
 *   adapter does not wrap); `detachedLaunch` is `unknown` (whether the create
 *   answers before the session runs is not established).
 *
 * - `snapshots: "not-exposed"`: Vercel's `sandbox.snapshot()` stops the sandbox
 *   it snapshots (the SDK: "this sandbox will be stopped as part of the snapshot
 *   creation process"; Vercel's docs: the sandbox "shuts down automatically and
 *   becomes unreachable"), so its processes end and its session is over. The
 *   port's `snapshot` leaves the source running, so the adapter has no
 *   `snapshot` (nor `listSnapshots`, `deleteSnapshot`), and a launch with
 *   `from` is refused `UNSUPPORTED` before any request. `stop` is the
 *   snapshot a persistent sandbox already gets (its files kept for `start`).
 * - `stopKeeps: "unknown"`: what survives `stop` then `start` (files, processes) waits for
 *   live evidence (the canary's `stopKeeps` probe; `lifecycle.stop-keeps` then proves a declared value).
 *
 * - `fork: "not-exposed"`: Vercel's `Sandbox.fork` starts the new sandbox from
 *   the source's last snapshot (its base environment when it has none), not
 *   from its files now, and a snapshot stops the sandbox (see `snapshots`):
 *   the port's fork copies a running sandbox as it is and leaves it running.
 *
 * Network policy updates and drives exist in Vercel but have no place
 * in the port (`sandbox-v1`), so this adapter does not reach them.
 * - `networkPolicy: "domains"`: `"all"` is `allow-all`, `"none"` (and an empty allow list)
 *   `deny-all`; an allow list is Vercel's user-defined policy, which denies everything
 *   else: domains and `*.` wildcards in `allow`, IPv4 and IPv6 ranges in `subnets.allow`
 *   (see `network-plan.ts`). A domain with a `:port` is refused (`UNSUPPORTED`, naming the
 *   entry): Vercel's rules have no ports. Vercel matches a domain by the name of a TLS
 *   handshake (SNI; Postgres over TLS too), so plain HTTP to a listed name is refused
 *   unless its address is in a listed range: less than the port's, never more. Its
 *   firewall documents two looser edges: a policy with ranges but no domain leaves the
 *   sandbox's resolver open (names resolve, so DNS can carry data out), and it does not
 *   say whether `*.example.com` also matches `example.com` (the port's wildcard does not).
 * - `memoryLimit`, `cpuLimit`, `processLimit`: `cpus` (1, 2, 4, 6 or 8) and `memoryMiB` (2048 per vCPU) become
 *   the sandbox's vCPU count on create (anything else `UNSUPPORTED`), unseen live: `unknown`; `maxProcesses` is
 *   refused: `unsupported`.
 * - `diskLimit: "unsupported"`: a sandbox's create takes no disk size; `diskMiB` is refused.
 */
export const vercelCapabilities: DeclaredCapabilities = remoteCapabilities({
  lifecycle: "unknown",
  neverIdle: "unsupported",
  binaryOutput: "unsupported",
  memoryLimit: "unknown",
  cpuLimit: "unknown",
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
  absent: {
    interactive: "unsupported",
    fileOps: "not-exposed",
    detachedLaunch: "unknown",
    snapshots: "not-exposed",
    fork: "not-exposed",
  },
});

/** @deprecated Renamed {@link vercelCapabilities}, as every provider's `<p>Capabilities`; this alias will be removed. */
export const vercelSandboxCapabilities = vercelCapabilities;
