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
 * - `networkPolicy` when its `networkPolicy` mode enforces allow lists
 *   (`domains`, or `cidr` for ranges only): a sandbox launched with
 *   `launch.network: { allow: [...] }` reaches only those destinations. Not
 *   for `all-or-none` (a launch is cut off or not, no list) or an absence.
 *   TanStack AI's contract carries no egress policy to pass on: the policy is
 *   the provider's `launch.network`.
 * - `snapshots` when it has the port's snapshots (`snapshot`,
 *   `listSnapshots`, `deleteSnapshot`, and `launch({ from })`): the handle's
 *   `snapshot` and the provider's `restoreSnapshot` map onto them. Otherwise
 *   the provider has no `restoreSnapshot` and the handle's `snapshot` is
 *   TanStack AI's `UnsupportedCapabilityError`.
 * - `fork` when it has the port's `fork` (used as it is) or its snapshots (a
 *   snapshot and a launch from it); otherwise the handle's `fork` is TanStack
 *   AI's `UnsupportedCapabilityError`.
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
    snapshots: resolved.snapshots === true,
    networkPolicy: resolved.networkPolicy === "domains" || resolved.networkPolicy === "cidr",
    durableFilesystem: resolved.filesystem === "persistent",
    fork: resolved.fork === true || resolved.snapshots === true,
  };
}
