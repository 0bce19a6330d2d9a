import type { DeclaredCapabilities } from "@sandport/core";
import { remoteCapabilities } from "@sandport/core/adapter";

/** What a runtime's capabilities depend on: the backend it is bound to, and whether it stops idle sandboxes. */
export interface CapabilityBasis {
  readonly backend: "cloud" | "local";
  /** True when `idleTimeoutMs` is set: sandboxes are then stopped for idleness. */
  readonly idleTimeout: boolean;
}

/**
 * What a `MicrosandboxRuntime` declares beyond its methods, for its backend.
 * The methods are the same for both backends; structural capabilities follow
 * from them (reattach, labelSearch, streaming, fileOps, interactive), and the
 * absent ones are `not-exposed`: async commands, detached launch (the SDK can
 * create a sandbox without waiting for it) and ports (the local backend
 * publishes ports, the cloud SDK refuses to) are things microsandbox has and
 * this adapter does not reach. `fork` is `unsupported`: neither backend's
 * API nor SDK copies a running sandbox.
 *
 * The cloud backend, proven against the microsandbox emulator of
 * `@sandport/testkit` through the real SDK:
 *
 * - `verifiedCleanup: true`: `destroy` resolves only once the API answers
 *   not-found for the sandbox, and rejects `DESTROY_UNVERIFIED` otherwise.
 * - `binaryOutput: true`: agentd carries output as byte strings and the SDK
 *   hands them over as `Uint8Array`; output events carry them untouched.
 * - `outputStreams: "separate"`: stdout and stderr are separate messages.
 * - `lifetime: "deadline"`: `maxDuration` is always sent (`"idle-timeout"`
 *   when `idleTimeoutMs` is set, which stops a sandbox sooner).
 * - `neverIdle`: `unknown` without an idle timeout (the service documents
 *   none by default, which no test here can observe); `not-exposed` with one
 *   (the service can keep an idle sandbox, this runtime was told not to).
 * - `lifecycle: "unknown"`, `filesystem: "unknown"`: `stop`/`start` are the
 *   SDK's own and run against the emulator, which keeps files by
 *   construction; whether the service resumes every sandbox with its files
 *   is left to a live canary's evidence.
 * - `isolation: "unknown"`: microsandbox documents a microVM per sandbox; the
 *   emulator runs plain processes, so nothing here proves it.
 * - `warmLease: "unknown"`: an idle sandbox can be found by labels and
 *   reused, but its `maxDuration` may stop it in between.
 * - `pty: "not-exposed"`: agentd has terminals; this adapter has no `openTerminal`, so it does not reach them.
 *
 * The local backend runs the same adapter code, unit-tested with a fake SDK,
 * but no microVM can boot on the machines that test it: every cell that
 * depends on what the VM does (`binaryOutput`, `outputStreams`, `filesystem`,
 * `lifetime`, `isolation`) is `unknown` until a live canary on a machine with
 * hardware virtualisation promotes it. `verifiedCleanup` stays `true`: it is
 * the adapter's own procedure (delete, then look until not found), the same
 * on both backends.
 * - `stopKeeps: "unknown"`: what survives `stop` then `start` (files, processes) waits for
 *   live evidence (the canary's `stopKeeps` probe; `lifecycle.stop-keeps` then proves a declared value).
 * - `networkPolicy: "all-or-none"`: `disableNetwork` turns the network off; an allow list is refused (`UNSUPPORTED`).
 * - `memoryLimit`, `cpuLimit`, `processLimit`: `memoryMiB` and `cpus` (whole vCPUs) become the microVM's memory
 *   and vCPUs, unseen live: `unknown`; `maxProcesses` is refused (microsandbox limits processes per user):
 *   `unsupported`.
 * - `diskLimit: "not-exposed"`: microsandbox sizes a microVM's root disk (`RootDiskBuilder.size`), which this
 *   adapter does not reach yet; `diskMiB` is refused.
 */
export function capabilitiesFor(basis: CapabilityBasis): DeclaredCapabilities {
  const cloud = basis.backend === "cloud";
  return remoteCapabilities({
    lifecycle: "unknown",
    neverIdle: basis.idleTimeout ? "not-exposed" : "unknown",
    binaryOutput: cloud ? true : "unknown",
    memoryLimit: "unknown",
    cpuLimit: "unknown",
    processLimit: "unsupported",
    diskLimit: "not-exposed",
    modes: {
      outputStreams: cloud ? "separate" : "unknown",
      filesystem: "unknown",
      lifetime: cloud ? (basis.idleTimeout ? "idle-timeout" : "deadline") : "unknown",
      isolation: "unknown",
      networkPolicy: "all-or-none",
      stopKeeps: "unknown",
    },
    absent: { asyncExec: "not-exposed", detachedLaunch: "not-exposed", ports: "not-exposed", fork: "unsupported" },
  });
}

/**
 * The declaration of a `MicrosandboxRuntime` on the cloud backend without an
 * idle timeout (the default options). A runtime's own `capabilities` depend
 * on its backend and options: read `runtime.capabilities` (or
 * `resolveCapabilities(runtime)`) for the one you hold; see {@link capabilitiesFor}.
 */
export const microsandboxCapabilities: DeclaredCapabilities = capabilitiesFor({ backend: "cloud", idleTimeout: false });
