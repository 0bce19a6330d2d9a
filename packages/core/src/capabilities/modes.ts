import type { Absence } from "./absence.js";

/**
 * How output comes back: `separate` stdout and stderr, `combined` (stderr merged
 * into stdout; `ExecResult.stderr` is empty), or `buffered` (only after exit, even when streamed).
 */
export type OutputStreamsMode = "separate" | "combined" | "buffered";

/**
 * What happens to the workspace's files over the sandbox's life: `persistent`
 * files stay until the sandbox is destroyed (across `stop`/`start` and
 * reattaching from another process); `ephemeral` files may be lost when the
 * sandbox stops or restarts.
 */
export type FilesystemMode = "ephemeral" | "persistent";

/**
 * What ends a sandbox's life: a fixed `deadline`, an `idle-timeout`, or nothing
 * (`never-idle`: it lives until destroyed).
 */
export type LifetimeMode = "deadline" | "idle-timeout" | "never-idle";

/**
 * What separates sandboxed code from the host: a `microvm`, a `container`,
 * Linux `namespaces` (same kernel), or `none` (plain processes).
 */
export type IsolationMode = "microvm" | "container" | "namespaces" | "none";

/**
 * Which `LaunchSpec.network` policies a runtime enforces: `domains` (allow
 * lists of domain names and CIDR ranges, as well as `"all"` and `"none"`),
 * `cidr` (allow lists of CIDR ranges only), `all-or-none` (no allow list).
 * An absence (`unsupported`, `not-exposed`) means not even that choice per
 * launch: the runtime's own documentation says which one policy it has. A
 * policy beyond what is declared is refused with `UNSUPPORTED`.
 */
export type NetworkPolicyMode = "domains" | "cidr" | "all-or-none";

/**
 * What survives `stop` then `start`: `filesystem` (the workspace's files; no
 * process survives), `filesystem+memory` (the files and every process, which
 * continues where it was: a server keeps serving, a loop keeps counting), or
 * `nothing` (the sandbox comes back blank). A runtime without `stop`/`start`
 * declares an absence (`unsupported`); one whose provider has not been
 * watched doing it says `unknown`. The conformance check
 * `lifecycle.stop-keeps` proves a declared value.
 */
export type StopKeepsMode = "filesystem" | "filesystem+memory" | "nothing";

/** The modes a runtime declares. Each is a value or the reason it is not known. */
export interface CapabilityModes {
  readonly outputStreams: OutputStreamsMode | Absence;
  readonly filesystem: FilesystemMode | Absence;
  readonly lifetime: LifetimeMode | Absence;
  readonly isolation: IsolationMode | Absence;
  readonly networkPolicy: NetworkPolicyMode | Absence;
  readonly stopKeeps: StopKeepsMode | Absence;
}

/** The legal values of each mode, for validating declarations and evidence. */
export const MODE_VALUES: { readonly [K in keyof CapabilityModes]: readonly string[] } = {
  outputStreams: ["separate", "combined", "buffered"],
  filesystem: ["ephemeral", "persistent"],
  lifetime: ["deadline", "idle-timeout", "never-idle"],
  isolation: ["microvm", "container", "namespaces", "none"],
  networkPolicy: ["domains", "cidr", "all-or-none"],
  stopKeeps: ["filesystem", "filesystem+memory", "nothing"],
};
