import type { DeclaredCapabilities } from "@sandport/core";

/**
 * What `E2BRuntime` declares beyond its methods. Structural capabilities
 * (reattach, labelSearch, asyncExec, streaming, fileOps) follow from the
 * methods it has; the rest:
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
 * - `binaryOutput: "not-exposed"`: envd streams raw bytes, but the SDK hands
 *   output over as decoded text, so output events carry the text's UTF-8.
 * - `pty: "not-exposed"`: E2B has terminals; the port does not reach them.
 *
 * PTY, snapshots, fork and preview URLs exist in E2B but have no place in the
 * port (`sandbox-v1`), so this adapter does not reach them (not exposed).
 */
export const e2bCapabilities: DeclaredCapabilities = Object.freeze({
  warmLease: "unknown",
  lifecycle: "unknown",
  verifiedCleanup: true,
  neverIdle: "unknown",
  binaryOutput: "not-exposed",
  pty: "not-exposed",
  modes: Object.freeze({
    outputStreams: "separate",
    filesystem: "unknown",
    lifetime: "deadline",
    isolation: "microvm",
  }),
  absent: Object.freeze({ detachedLaunch: "unsupported" }),
});
