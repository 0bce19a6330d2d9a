import { resolveCapabilities, type SandboxRuntime } from "@sandport/core";
import type { SandboxCapabilities } from "@tanstack/ai-sandbox";

/**
 * TanStack AI's capability descriptor of a Sandport runtime, from what the
 * runtime really has (`resolveCapabilities`):
 *
 * - `fs`, `exec` and `env` are always true (files, commands, launch and per-command env).
 * - `ports` when the runtime has `portEndpoint`.
 * - `backgroundProcesses` and `writableStdin` when it has `spawn` (a spawned command's stdin is writable).
 * - `durableFilesystem` when its `filesystem` mode is `persistent`.
 * - `snapshots`, `fork` and `networkPolicy` are false: the port has no snapshot,
 *   no fork and no egress allow/deny list, so the handle has no `snapshot` or
 *   `fork` member and the provider no `restoreSnapshot`.
 */
export function tanstackCapabilities(runtime: SandboxRuntime): SandboxCapabilities {
  const resolved = resolveCapabilities(runtime);
  return {
    fs: true,
    exec: true,
    env: true,
    ports: resolved.ports === true,
    backgroundProcesses: resolved.interactive === true,
    writableStdin: resolved.interactive === true,
    snapshots: false,
    networkPolicy: false,
    durableFilesystem: resolved.filesystem === "persistent",
    fork: false,
  };
}
