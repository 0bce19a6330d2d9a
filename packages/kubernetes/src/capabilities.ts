import type { DeclaredCapabilities } from "@sandport/core";
import { remoteCapabilities } from "@sandport/core/adapter";
import type { DataPlane } from "./options.js";

/** `KubernetesRuntime`'s capabilities, whose modes name the network policy a launch is held to. */
export type KubernetesCapabilities = DeclaredCapabilities;

/**
 * What `KubernetesRuntime` declares beyond its methods, by data plane.
 * Structural capabilities follow from the methods: `reattach`,
 * `labelSearch`, `streaming` (sandboxd's `Start` stream, or the exec
 * WebSocket, as output arrives), `interactive` (`spawn`: stdin through
 * `WriteStdin` or channel 0; closing it needs exec's v5), `fileOps`
 * (commands in the pod), `ports` (the router, `X-Sandbox-Port`),
 * `asyncExec` (sandboxd forgets a process once its `Start` stream ends, so
 * an async command runs under the kit's file-backed supervisor, detached in
 * the pod, on either plane; it needs `bash` in the pod) and `pty`
 * (`openTerminal`: sandboxd's `Start` with a PTY and `ResizeTTY`, or pod
 * exec with `tty` and its resize channel) are there. The absent one:
 *
 * - `detachedLaunch: "not-exposed"`: a claim is one create; its readiness is waited for.
 * - `fork: "unsupported"`: neither sandboxd nor the pod API copies a running
 *   sandbox (a pod's writable layer and memory stay on its node).
 *
 * Declared:
 * - `lifecycle: "unknown"`: `stop`/`start` set the sandbox's
 *   `operatingMode` and wait for `Suspended`/`Ready`, run against the
 *   emulator; whether the claim controller leaves a suspended sandbox
 *   alone on a real cluster is not yet shown by a canary.
 * - `neverIdle: true`: a claim without `lifetimeMs` has no
 *   `shutdownTime` and agent-sandbox ends nothing for idleness.
 * - `binaryOutput: true`: both planes carry output as bytes.
 * - modes: `outputStreams: "separate"`; `filesystem: "ephemeral"` (the
 *   workspace is the pod's, unless the template mounts a volume there);
 *   `lifetime: "never-idle"`; `isolation: "unknown"` (runc, gVisor or
 *   Kata: the template's RuntimeClass decides); `networkPolicy:
 *   "not-exposed"`: agent-sandbox applies one NetworkPolicy per template,
 *   so a launch may ask only for what the `network` option says the
 *   template gives; allow lists are refused (`UNSUPPORTED`).
 * - `stopKeeps: "unknown"`: a suspended sandbox's pod is deleted and its volumes kept, so
 *   files on a volume survive and processes do not; no canary has shown it on a cluster yet.
 * - `memoryLimit`, `cpuLimit`, `processLimit`, `diskLimit`: the launch refuses every
 *   `resources` limit (`UNSUPPORTED`): a sandbox's resources are its template's pod spec.
 */
export function kubernetesCapabilities(_dataPlane: DataPlane): KubernetesCapabilities {
  return remoteCapabilities({
    lifecycle: "unknown",
    neverIdle: true,
    binaryOutput: true,
    memoryLimit: "unsupported",
    cpuLimit: "unsupported",
    processLimit: "unsupported",
    diskLimit: "unsupported",
    modes: {
      outputStreams: "separate",
      filesystem: "ephemeral",
      lifetime: "never-idle",
      isolation: "unknown",
      networkPolicy: "not-exposed",
      stopKeeps: "unknown",
    },
    absent: {
      detachedLaunch: "not-exposed",
      fork: "unsupported",
    },
  });
}
