import type { DeclaredCapabilities } from "@sandport/core";
import { remoteCapabilities } from "@sandport/core/adapter";

/**
 * What `FreestyleRuntime` declares beyond its methods. Structural capabilities
 * follow from the methods it has: `reattach`, `labelSearch` and `fileOps` are
 * there; the absent ones:
 *
 * - `streaming: "not-exposed"`: `exec-await` answers once the command has
 *   ended; Freestyle streams output only through a PTY over WebSocket, whose
 *   terminal merges stderr into stdout and rewrites line endings, so it cannot
 *   give `execStream`'s separate, exact streams.
 * - `interactive: "not-exposed"`: the only way to write to a running command's
 *   stdin is that PTY (it echoes what is typed and has no end-of-input apart
 *   from the terminal's own).
 * - `asyncExec: "not-exposed"`: the `/v5` API has no detached command; whether
 *   a process outlives the `exec-await` that started it is not documented.
 * - `ports: "not-exposed"`: a TLS rule publishes a domain to a VM port, but
 *   it needs a firewall rule and a domain per port, and the emulator here
 *   cannot serve one; not reached.
 * - `detachedLaunch: "not-exposed"`: launch waits for the create to answer.
 * - `fork: "not-exposed"`: the `/v5` API that `freestyle` 0.2.x calls has no
 *   fork (the SDK's `Vm` has none); the legacy `/v1` API's `vm.fork()`
 *   (`freestyle-sandboxes` 0.1.x) takes only a count, so a fork could not be
 *   given this owner's marks, a lifetime or a firewall as it is created.
 *   `snapshot` (live, memory and disk) then `launch({ from })` gives the same
 *   copy in two calls.
 *
 * `snapshots` is there (structural): `snapshot` is Freestyle's live
 * `vm.snapshot()`, memory and disk (`filesystem+memory`), after which the VM
 * keeps running (docs.freestyle.sh: running VMs make "live" snapshots);
 * `listSnapshots`/`deleteSnapshot` use `freestyle.vms.snapshots`, and a launch
 * boots from one by `snapshotId`. Snapshots have no metadata: ownership and
 * labels ride in the slug and display name (see `snapshot-marks.ts`).
 *
 * Declared:
 * - `verifiedCleanup: true`: `destroy` resolves only once `GET /v5/vms/{id}`
 *   answers 404, and rejects `DESTROY_UNVERIFIED` otherwise.
 * - `lifecycle: "unknown"`: `stop`/`start` are Freestyle's pause and start,
 *   run against the emulator; that the service resumes a paused VM faithfully
 *   awaits a live canary.
 * - `warmLease: "unknown"`: an idle VM can be found by labels and reused, but
 *   its lifetime, an idle timeout or the plan's auto-delete may end it in between.
 * - `neverIdle: "unknown"`: the idle timeout and auto-delete are sent as
 *   "never", but some plans cap auto-delete anyway.
 * - `binaryOutput: "not-exposed"`: `exec-await` answers output as JSON text;
 *   raw bytes come only through the PTY.
 * - `pty: "not-exposed"`: Freestyle has terminals; this adapter has no `openTerminal`, so it does not reach them.
 * - modes: `outputStreams: "separate"` (stdout and stderr come apart);
 *   `lifetime: "deadline"` (the lifetime is always sent as `ttlSeconds`, which
 *   nothing resets); `isolation: "microvm"` (each VM has its own guest kernel
 *   under a VMM, as the SDK documents); `filesystem: "unknown"` (pause keeps
 *   memory and disk by Freestyle's account; only a live run can prove it).
 * - `stopKeeps: "unknown"`: what survives `stop` then `start` (files, processes) waits for
 *   live evidence (the canary's `stopKeeps` probe; `lifecycle.stop-keeps` then proves a declared value).
 * - `networkPolicy: "cidr"`: the firewall (required on every create) has the
 *   public-egress rule, no rule, or one rule per CIDR range of an allow list
 *   (`destination: { cidr }`, every port and protocol). A domain entry is
 *   refused (`UNSUPPORTED`): Freestyle's firewall matchers have no domain.
 * - `memoryLimit`, `cpuLimit`, `processLimit`, `diskLimit`: the launch refuses every `resources` limit (`UNSUPPORTED`): a
 *   VM's size comes from its snapshot.
 */
export const freestyleCapabilities: DeclaredCapabilities = remoteCapabilities({
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
    networkPolicy: "cidr",
    stopKeeps: "unknown",
  },
  absent: {
    streaming: "not-exposed",
    interactive: "not-exposed",
    asyncExec: "not-exposed",
    ports: "not-exposed",
    detachedLaunch: "not-exposed",
    fork: "not-exposed",
  },
});
