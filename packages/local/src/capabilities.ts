import type { DeclaredCapabilities } from "@sandport/core";
import type { CgroupUsage, LocalIsolation } from "./options.js";

/**
 * What `LocalRuntime` declares about itself, for the given isolation mode, its
 * `cgroups` option and whether this process can freeze sandboxes (`freezable`).
 *
 * - `warmLease`: sandboxes persist until destroyed and `findByLabels` finds them.
 * - `lifecycle`: `true` where this process can freeze sandboxes (`freezable`: Linux 5.14+, a
 *   cgroup v2 hierarchy this process may create cgroups in, `cgroups` not `"disabled"`; decided
 *   once per process at construction, see `freezerSupport`): `stop` freezes every process of the
 *   sandbox with the cgroup v2 freezer and `start` thaws them. Elsewhere `unsupported` (a non-root
 *   user without a delegated cgroup v2 subtree, cgroup v1-only hosts, `cgroups: "disabled"`), and
 *   the runtime has no `stop`/`start` at all, so the declaration and the methods agree.
 *   Under `isolation: "none"` a process that moved itself out of the sandbox's cgroup (root can)
 *   is not frozen.
 * - `verifiedCleanup`: `destroy` kills what runs there, removes the directory and checks it is gone.
 * - `neverIdle`: nothing reclaims an idle sandbox (only an explicit `lifetimeMs`, lazily; see `LocalRuntime`).
 * - `stopKeeps`: `filesystem+memory` with `lifecycle` (frozen processes resume where they were, the
 *   workspace untouched), else `unsupported`.
 * - modes: separate stdout/stderr, persistent files, `never-idle` lifetime, isolation as configured;
 *   `networkPolicy: "domains"` under `namespaces`: every sandbox has a network namespace of its own
 *   (only `lo`); for `"none"` that is all, for `"all"` and an allow list its one way out is the
 *   runtime's egress proxy on the host (HTTP `CONNECT`, plain HTTP and SOCKS5 `CONNECT`, through the proxy variables),
 *   which resolves names itself and dials only public addresses (`"all"`, never this machine's own)
 *   or the list's entries (loopback, private and metadata addresses only where a CIDR entry names
 *   them). It stops: reaching the host's loopback services, private networks and the metadata
 *   service, and any destination off the list; DNS from inside (no resolver). It does not stop:
 *   anything sent to an allowed destination, domain fronting behind an allowed name (the proxy sees
 *   the `CONNECT` name, not the TLS SNI or `Host`), whatever broad entries (`*.amazonaws.com`)
 *   let in, or data leaked in the names the proxy looks up. Programs that ignore the proxy variables
 *   reach nothing. The `hostNetwork` option makes `"all"` share the host's network namespace
 *   instead, giving all of that up. `"unsupported"` under `none` (commands always have the host's
 *   network: `"none"` and allow lists are refused).
 * - `detachedLaunch`: `unsupported`: launching is synchronous, there is no "still booting" state.
 * - `binaryOutput`: output events carry the bytes read from the command's pipes, untouched.
 * - `pty` is structural: `openTerminal` puts a program on a pseudo-terminal inside the sandbox.
 * - `snapshots` is structural: `snapshot` copies the workspace, `launch({ from })` starts from the copy.
 * - `fork` is structural: `fork` launches a sandbox like the source with a copy of its workspace,
 *   taken while the source's processes are frozen where it has a freezer (with `lifecycle`);
 *   memory is not copied.
 * - `memoryLimit`, `cpuLimit`, `processLimit`: with `cgroups: "auto"`, `memoryMiB`, `cpus` and
 *   `maxProcesses` become the sandbox's cgroup limits (`memory.max`, `cpu.max`, `pids.max`, or
 *   their v1 files), written and read back at launch. Each is `true` where this process can place
 *   its controller (`enforceable`: decided once at construction from its cgroups, see
 *   `judgeLimits`), else `unsupported`, and the launch refuses it with `UNSUPPORTED` naming why,
 *   never ignoring it. With `cgroups: "disabled"` every limit is refused: `not-exposed`.
 * - `diskLimit`: `true` where this process can loop-mount an ext4 image (`diskBound`: root with
 *   `CAP_SYS_ADMIN` in the host's user namespace, `/dev/loop-control`, `mkfs.ext4`; decided at
 *   construction, see `judgeDiskSupport`): `diskMiB` is then the size of the file system the
 *   workspace lives on, and a write past it fails with `ENOSPC`. Elsewhere `unsupported`: `diskMiB`
 *   is refused at launch with `UNSUPPORTED` naming why, before anything is created.
 */
export function localCapabilities(
  isolation: LocalIsolation,
  {
    cgroups = "auto",
    freezable = false,
    enforceable = { memory: true, cpu: true, processes: true },
    diskBound = false,
  }: {
    readonly cgroups?: CgroupUsage;
    readonly freezable?: boolean;
    /** Which cgroup limits this process can place (default: all). */
    readonly enforceable?: { readonly memory: boolean; readonly cpu: boolean; readonly processes: boolean };
    /** Whether workspaces can be bounded (default: not). */
    readonly diskBound?: boolean;
  } = {},
): DeclaredCapabilities {
  const limit = (ok: boolean) => (cgroups === "disabled" ? "not-exposed" : ok ? true : "unsupported");
  return Object.freeze({
    warmLease: true,
    lifecycle: freezable ? true : "unsupported",
    verifiedCleanup: true,
    neverIdle: true,
    binaryOutput: true,
    memoryLimit: limit(enforceable.memory),
    cpuLimit: limit(enforceable.cpu),
    processLimit: limit(enforceable.processes),
    diskLimit: diskBound ? true : "unsupported",
    modes: Object.freeze({
      outputStreams: "separate",
      filesystem: "persistent",
      lifetime: "never-idle",
      isolation,
      networkPolicy: isolation === "none" ? "unsupported" : "domains",
      stopKeeps: freezable ? "filesystem+memory" : "unsupported",
    }),
    absent: Object.freeze({ detachedLaunch: "unsupported" }),
  });
}
