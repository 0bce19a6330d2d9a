import type { DeclaredCapabilities } from "@sandport/core";
import { remoteCapabilities } from "@sandport/core/adapter";

/**
 * What `AgentCoreRuntime` declares beyond its methods. Structural
 * capabilities follow from the methods it has: `reattach` and `labelSearch`
 * and `fileOps` (each operation one command in the session: see
 * `file-ops.ts`) are there; the absent ones:
 *
 * - `streaming: "not-exposed"`: `executeCommand` answers its whole result in
 *   one event once the command has ended; whether AgentCore ever sends partial
 *   output frames is not documented, and the port buffers one result.
 * - `interactive: "unsupported"`: no tool writes to a running command's stdin.
 * - `asyncExec: "not-exposed"`: `startCommandExecution`, `getTask` and
 *   `stopTask` exist, but the layout of their results (where a task's output
 *   and exit code are) is not documented; a canary recording their answers
 *   for a command that prints, exits non-zero and is stopped would let this
 *   adapter reach them.
 * - `ports: "unsupported"`: a session publishes no ports.
 * - `detachedLaunch: "not-exposed"`: Start answers once the session is ready; there is nothing to detach.
 * - `fork: "unsupported"`: AgentCore has no operation that copies a session.
 *
 * Declared:
 * - `verifiedCleanup: true`: `destroy` resolves only once Get answers
 *   `TERMINATED` (or not found) after Stop, and rejects `DESTROY_UNVERIFIED` otherwise.
 * - `lifecycle: "unsupported"`: Stop is terminal; a session cannot be resumed.
 * - `neverIdle: "unsupported"`: every session ends at its `sessionTimeoutSeconds` (at most 8 hours).
 * - `warmLease: "unknown"`: an idle session can be found by labels and reused
 *   until its timeout; a canary keeping one idle past a few minutes and
 *   running in it again would prove AgentCore does not reclaim it first.
 * - `binaryOutput: "unsupported"`: stdout and stderr arrive as JSON strings.
 * - `pty: "not-exposed"`: no tool offers a terminal.
 * - modes: `outputStreams: "separate"` (stdout and stderr are separate fields);
 *   `filesystem: "ephemeral"` (a session's disk is gone once it terminates, and
 *   it cannot be resumed); `isolation: "microvm"` (each session is its own
 *   microVM, as AWS documents); `lifetime: "unknown"`: the current API reference
 *   calls `sessionTimeoutSeconds` a limit "regardless of ongoing activity",
 *   older SDK docs an idle timeout; a canary running a command past a short
 *   timeout would settle `deadline` or `idle-timeout`.
 * - `stopKeeps: "unsupported"`: there is no `start` to come back to.
 * - `networkPolicy: "not-exposed"`: the network mode belongs to the code interpreter, so a launch may only ask for the one the `network` option names; an allow list is refused (`UNSUPPORTED`).
 * - `memoryLimit`, `cpuLimit`, `processLimit`, `diskLimit`: the launch refuses every `resources` limit (`UNSUPPORTED`): every
 *   session is the same fixed microVM.
 */
export const agentCoreCapabilities: DeclaredCapabilities = remoteCapabilities({
  lifecycle: "unsupported",
  neverIdle: "unsupported",
  binaryOutput: "unsupported",
  memoryLimit: "unsupported",
  cpuLimit: "unsupported",
  processLimit: "unsupported",
  diskLimit: "unsupported",
  modes: {
    outputStreams: "separate",
    filesystem: "ephemeral",
    lifetime: "unknown",
    isolation: "microvm",
    networkPolicy: "not-exposed",
    stopKeeps: "unsupported",
  },
  absent: {
    streaming: "not-exposed",
    interactive: "unsupported",
    asyncExec: "not-exposed",
    ports: "unsupported",
    detachedLaunch: "not-exposed",
    fork: "unsupported",
  },
});
