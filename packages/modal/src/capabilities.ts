import type { DeclaredCapabilities } from "@sandport/core";
import { remoteCapabilities } from "@sandport/core/adapter";

/**
 * What `ModalRuntime` declares beyond its methods. Structural capabilities
 * (reattach, labelSearch, streaming, fileOps, interactive, ports) follow from
 * the methods it has; the rest:
 *
 * - `verifiedCleanup: true`: `destroy` terminates, then resolves only once
 *   Modal reports the sandbox finished (or unknown), and rejects
 *   `DESTROY_UNVERIFIED` otherwise.
 * - `lifecycle: "unsupported"`: Modal has no stop or start; terminating is
 *   the only transition, so `stop`/`start` are absent.
 * - `warmLease: "unknown"`: an idle sandbox can be found by its tags and
 *   reused, but its fixed lifetime (and any idle timeout) may end it in
 *   between; awaits a live canary.
 * - `neverIdle: "unknown"`: without `idleTimeoutMs` Modal documents only the
 *   lifetime as what ends a sandbox; unobserved here.
 * - `binaryOutput: true`: commands run in the SDK's binary mode, so output
 *   events carry the bytes Modal streams (the conformance suite sends all 256
 *   byte values through stdin and stdout).
 * - `pty: "not-exposed"`: Modal execs can have a PTY (`exec(..., { pty: true })`), but `pty` is a
 *   boolean: the JS SDK (0.11.1) always sends a fixed 80×24 window (`defaultSandboxPTYInfo`), and
 *   neither it nor its protobuf has a call that resizes a running exec's terminal, which
 *   `Terminal.resize` (and a requested size) needs; this adapter has no `openTerminal`.
 * - modes: `outputStreams: "separate"` (stdout and stderr are read apart);
 *   `filesystem: "persistent"` (files stay until the sandbox ends, for every
 *   client that reattaches; there is no stop to lose them); `lifetime:
 *   "deadline"` (the lifetime is always sent); `isolation: "container"`
 *   (Modal runs sandboxes as gVisor containers).
 * - `asyncExec` is `unsupported`: Modal cannot find a running exec again by
 *   id (from another process or after a restart), so it is omitted rather
 *   than half-supported; `spawn` keeps a command running within a process.
 * - `detachedLaunch` is `unsupported`: the adapter's create answers once the
 *   sandbox can run commands.
 *
 * - `snapshots` is `not-exposed`: the three members go together, and the
 *   SDK (0.11.1) cannot own, label or list a snapshot. A filesystem snapshot
 *   (`sandbox.snapshotFilesystem()`) is an Image: `images.delete` removes it
 *   and a create boots from it, but an Image has no tags, labels or owner,
 *   and `client.images` lists nothing (listing published names is
 *   `ImageListTags`, only on the SDK's internal `cpClient`). Memory
 *   snapshots (`experimentalSnapshot`) have no list or delete either. So a
 *   launch from a snapshot is `UNSUPPORTED` before any request.
 * - `fork` is `unsupported`: Modal has no copy of a running sandbox; the
 *   nearest is a filesystem snapshot and a create from its Image, which has
 *   the ownership problem above.
 * - `stopKeeps: "unsupported"`: there is no stop or start.
 *
 * Volumes and connect tokens exist in Modal but have no place in the port
 * (`sandbox-v1`), so this adapter does not reach them (not exposed).
 * - `networkPolicy: "cidr"`: `blockNetwork` turns the network off; an allow
 *   list of CIDR ranges becomes `outboundCidrAllowlist`, which Modal enforces
 *   for every protocol and port. A domain entry is refused (`UNSUPPORTED`):
 *   Modal's `outboundDomainAllowlist` (beta) admits only TLS to port 443 of a
 *   name, narrower than the port's name entry (every port) and unable to say
 *   a port other than 443.
 * - `memoryLimit`, `cpuLimit`, `processLimit`: `memoryMiB` and `cpus` become the SDK's hard
 *   limits, `memoryLimitMiB` and `cpuLimit`, each with an equal reservation (`memoryMiB`, `cpu`:
 *   the SDK sends a limit only beside its reservation); the emulator enforces the limits, Modal's
 *   service is unseen live: `unknown`. `maxProcesses` is refused: `unsupported`.
 * - `diskLimit: "not-exposed"`: the SDK's sandbox create takes no disk size (Modal's wire has an
 *   ephemeral disk size in its resources); `diskMiB` is refused.
 */
export const modalCapabilities: DeclaredCapabilities = remoteCapabilities({
  lifecycle: "unsupported",
  neverIdle: "unknown",
  binaryOutput: true,
  memoryLimit: "unknown",
  cpuLimit: "unknown",
  processLimit: "unsupported",
  diskLimit: "not-exposed",
  modes: {
    outputStreams: "separate",
    filesystem: "persistent",
    lifetime: "deadline",
    isolation: "container",
    networkPolicy: "cidr",
    stopKeeps: "unsupported",
  },
  absent: { asyncExec: "unsupported", detachedLaunch: "unsupported", snapshots: "not-exposed", fork: "unsupported" },
});
