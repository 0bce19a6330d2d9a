import type { DeclaredCapabilities } from "@sandport/core";
import type { LocalIsolation } from "./options.js";

/**
 * What `LocalRuntime` declares about itself, for the given isolation mode.
 *
 * - `warmLease`: sandboxes persist until destroyed and `findByLabels` finds them.
 * - `lifecycle`: `unsupported`. A sandbox is a directory; there is nothing to pause.
 * - `verifiedCleanup`: `destroy` kills what runs there, removes the directory and checks it is gone.
 * - `neverIdle`: nothing reclaims an idle sandbox (only an explicit `lifetimeMs`, lazily; see `LocalRuntime`).
 * - modes: separate stdout/stderr, persistent files, `never-idle` lifetime, isolation as configured;
 *   `networkPolicy: "domains"` under `namespaces` (a network namespace of its own, the host's for
 *   `"all"`, or for an allow list its own reaching out only through the runtime's egress proxy),
 *   `"unsupported"` under `none` (commands always have the host's network: `"none"` is refused too).
 * - `detachedLaunch`: `unsupported`: launching is synchronous, there is no "still booting" state.
 * - `binaryOutput`: output events carry the bytes read from the command's pipes, untouched.
 * - `pty` is structural: `openTerminal` puts a program on a pseudo-terminal inside the sandbox.
 * - `snapshots` is structural: `snapshot` copies the workspace, `launch({ from })` starts from the copy.
 */
export function localCapabilities(isolation: LocalIsolation): DeclaredCapabilities {
  return Object.freeze({
    warmLease: true,
    lifecycle: "unsupported",
    verifiedCleanup: true,
    neverIdle: true,
    binaryOutput: true,
    modes: Object.freeze({
      outputStreams: "separate",
      filesystem: "persistent",
      lifetime: "never-idle",
      isolation,
      networkPolicy: isolation === "none" ? "unsupported" : "domains",
    }),
    absent: Object.freeze({ detachedLaunch: "unsupported" }),
  });
}
