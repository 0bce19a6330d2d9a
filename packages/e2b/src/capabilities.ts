import type { DeclaredCapabilities } from "@sandport/core";

/**
 * What `E2BRuntime` declares beyond its methods. Structural capabilities
 * (reattach, labelSearch, asyncExec, streaming, fileOps) follow from the
 * methods it has; the rest:
 *
 * - `verifiedCleanup: true`: `destroy` resolves only after the provider reports
 *   the sandbox not found, and rejects `DESTROY_UNVERIFIED` otherwise.
 * - `lifecycle: true`: `stop`/`start` are E2B's own pause and resume
 *   (`POST /sandboxes/{id}/pause`, `connect`), a documented product feature;
 *   the wire tests run them against the emulator.
 * - `warmLease: "unknown"`: an idle sandbox can be found by labels and reused,
 *   but its fixed deadline may end it in between; awaits a live canary.
 * - `neverIdle: "unknown"`: E2B documents no idle reaper, only the deadline; unobserved.
 * - modes: `outputStreams: "separate"` (the SDK delivers stdout and stderr
 *   apart); `lifetime: "deadline"` (the lifetime is always sent and the
 *   timeout action is always `kill`); `isolation: "microvm"` (E2B runs each
 *   sandbox in a Firecracker microVM); `filesystem: "persistent"` (E2B's pause
 *   keeps the filesystem, and memory, until resume).
 * - `detachedLaunch` is `unsupported`: E2B's create answers only once the sandbox runs.
 *
 * PTY, snapshots, fork and preview URLs exist in E2B but have no place in the
 * port (`sandbox-v1`), so this adapter does not reach them (not exposed).
 */
export const e2bCapabilities: DeclaredCapabilities = Object.freeze({
  warmLease: "unknown",
  lifecycle: true,
  verifiedCleanup: true,
  neverIdle: "unknown",
  modes: Object.freeze({
    outputStreams: "separate",
    filesystem: "persistent",
    lifetime: "deadline",
    isolation: "microvm",
  }),
  absent: Object.freeze({ detachedLaunch: "unsupported" }),
});
