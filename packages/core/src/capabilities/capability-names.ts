/**
 * Capabilities derived from which optional methods a runtime has:
 *
 * - `reattach` ⇐ `getById`
 * - `labelSearch` ⇐ `findByLabels`
 * - `asyncExec` ⇐ `startCommand`, `commandStatus` and `commandLogs`, plus `getById`
 *   (a command you cannot find again after a restart is not async exec)
 * - `streaming` ⇐ `execStream`
 * - `detachedLaunch` ⇐ `launchDetached`
 * - `fileOps` ⇐ `listDir`, `stat`, `mkdir` and `remove`
 * - `interactive` ⇐ `spawn` (a running command's stdin is writable)
 * - `ports` ⇐ `portEndpoint` (a port a sandboxed server listens on is reachable from outside)
 * - `pty` ⇐ `openTerminal` (a program can run on a pseudo-terminal inside the sandbox)
 * - `snapshots` ⇐ `snapshot`, `listSnapshots` and `deleteSnapshot` (and `launch` accepts `from`)
 * - `fork` ⇐ `fork` (a running sandbox can be copied into a new one by the provider's own mechanism)
 * - `fileStreaming` ⇐ `readFileStream` (a file is read in chunks as the caller consumes them, in bounded memory)
 * - `lifecycle` ⇐ `stop` and `start` (also declared, since presence alone cannot prove they work)
 */
export const STRUCTURAL_CAPABILITIES = [
  "reattach",
  "labelSearch",
  "asyncExec",
  "streaming",
  "detachedLaunch",
  "fileOps",
  "interactive",
  "ports",
  "pty",
  "snapshots",
  "fork",
  "fileStreaming",
] as const;

/** A capability that method presence decides. */
export type StructuralCapability = (typeof STRUCTURAL_CAPABILITIES)[number];

/**
 * Capabilities that method presence cannot prove, so the adapter declares them:
 *
 * - `warmLease`: an idle sandbox can be found again by labels and reused.
 * - `lifecycle`: `stop`/`start` really stop and resume the sandbox.
 * - `verifiedCleanup`: `destroy` proves the sandbox is gone, not merely asks.
 * - `neverIdle`: a sandbox is not reclaimed for idleness while it exists.
 * - `binaryOutput`: output events carry the exact bytes a command wrote (`ExecOutputEvent.bytes`).
 * - `memoryLimit`, `cpuLimit`, `processLimit`: `LaunchSpec.resources.memoryMiB`,
 *   `cpus` and `maxProcesses` are enforced on everything the sandbox runs (a
 *   command past the memory limit is killed, forks past the process limit are
 *   refused, CPU is throttled to the share). `unsupported` where the launch
 *   refuses the limit (`UNSUPPORTED`, before anything is created); `unknown`
 *   where it is passed on to the provider's sizes but nobody has seen it hold.
 * - `diskLimit`: `LaunchSpec.resources.diskMiB` bounds what the sandbox can
 *   write; absent (and refused at launch) where nothing can enforce it.
 */
export const DECLARED_CAPABILITIES = [
  "warmLease",
  "lifecycle",
  "verifiedCleanup",
  "neverIdle",
  "binaryOutput",
  "memoryLimit",
  "cpuLimit",
  "processLimit",
  "diskLimit",
] as const;

/** A yes/no capability the adapter declares. */
export type DeclaredCapability = (typeof DECLARED_CAPABILITIES)[number];

/** Mode names; see `CapabilityModes`. */
export const MODE_NAMES = [
  "outputStreams",
  "filesystem",
  "lifetime",
  "isolation",
  "networkPolicy",
  "stopKeeps",
] as const;

/** One of the mode names. */
export type ModeName = (typeof MODE_NAMES)[number];

/** Any capability a caller can ask about. */
export type CapabilityName = StructuralCapability | DeclaredCapability | ModeName;
