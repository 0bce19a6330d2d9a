import type { DeclaredCapabilities } from "@sandport/core";
import { remoteCapabilities } from "@sandport/core/adapter";

/**
 * What `Agent37Runtime` declares beyond its methods. Structural capabilities
 * follow from the methods it has. Present: `reattach`, `labelSearch`,
 * `fileOps` (the instance plane's listing, mkdir and delete; `stat` from the
 * parent's listing, as the plane has none) and `ports` (`portEndpoint`: a
 * port declared at launch is a public port with its own unauthenticated
 * URL; a template port is reached through its URL with the key in a
 * header). The shared `ports.http` check cannot run here, since nothing
 * keeps a server running, so a wire test starts one on the emulator's
 * backend; a canary that starts `nohup … &` from exec and fetches it through
 * its public port would prove the path on the service. The absent ones:
 *
 * - `streaming: "unsupported"`: exec is one buffered request that answers
 *   once the command has ended.
 * - `asyncExec: "not-exposed"`: Agent37 has no detached command, and exec
 *   ends every call at 280 s (`provisioning_failed`). A `nohup … &` recipe
 *   would start one, but its status and logs cannot be recovered reliably:
 *   stop, restart and template updates lose `/tmp`, a crash leaves no exit
 *   record, and nothing dedupes two starts. Commands are refused past 280 s.
 * - `interactive: "unsupported"`: exec has no stdin stream and no PTY, and
 *   instance URLs carry no WebSocket.
 * - `detachedLaunch: "unsupported"`: the create answers only once the instance runs.
 * - `fork: "unsupported"`: the API has no operation that copies an instance.
 *
 * Declared:
 * - `warmLease: "unknown"` (every remote runtime's): an idle instance can be
 *   found by labels and reused; a canary that finds and reuses one it left
 *   idle for an hour would prove that nothing (auto-sleep, billing) ended it.
 * - `lifecycle: "unknown"`: `stop`/`start` are Agent37's own and wait for
 *   `stopped`/`running`, run against the emulator; a canary that writes a
 *   file, stops, starts and reads it back would prove the instance resumes.
 * - `neverIdle: "unknown"`: instances persist until deleted, and auto-sleep
 *   is never asked for; a canary that leaves an instance idle past the
 *   service's default idle timeout and finds it `running` would prove it.
 * - `binaryOutput: "unsupported"`: exec answers output as JSON strings.
 * - modes: `outputStreams: "separate"` (exec answers stdout and stderr
 *   apart); `lifetime: "never-idle"` (no deadline: an instance lives until
 *   deleted); `filesystem: "unknown"` (the disk persists while stopped, by
 *   Agent37's account; the canary above would prove it); `isolation:
 *   "unknown"` (a container under gVisor by the one measurement known; a
 *   canary reading the kernel (`uname -r`, `dmesg`) would settle it).
 *
 * Aborting an exec's request does not stop the command on Agent37: the
 * kill of a command past its run budget, or of an aborted call, is a second
 * exec that sweeps its processes, best effort.
 * - `stopKeeps: "unknown"`: what survives `stop` then `start` (files, processes) waits for
 *   live evidence (the canary's `stopKeeps` probe; `lifecycle.stop-keeps` then proves a declared value).
 * - `networkPolicy: "unsupported"`: instances have open egress only, so `network: "none"` and allow lists are refused (`UNSUPPORTED`).
 * - `memoryLimit`, `cpuLimit`, `processLimit`, `diskLimit`: the launch refuses every `resources` limit (`UNSUPPORTED`): an
 *   instance's shape is one of fixed sizes.
 */
export const agent37Capabilities: DeclaredCapabilities = remoteCapabilities({
  lifecycle: "unknown",
  neverIdle: "unknown",
  binaryOutput: "unsupported",
  memoryLimit: "unsupported",
  cpuLimit: "unsupported",
  processLimit: "unsupported",
  diskLimit: "unsupported",
  modes: {
    outputStreams: "separate",
    filesystem: "unknown",
    lifetime: "never-idle",
    isolation: "unknown",
    networkPolicy: "unsupported",
    stopKeeps: "unknown",
  },
  absent: {
    streaming: "unsupported",
    interactive: "unsupported",
    asyncExec: "not-exposed",
    detachedLaunch: "unsupported",
    fork: "unsupported",
  },
});
