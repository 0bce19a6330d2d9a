import { join } from "node:path";
import { quoteShellArg, type ValidatedExecRequest } from "@sandport/core";
import { resolveCwd } from "@sandport/core/adapter";
import { joinFiles } from "../cgroups/cgroups.js";
import {
  EGRESS_DIRECTORY,
  EGRESS_NODE_PATH,
  EGRESS_PROXY_PORT,
  EGRESS_RELAY_FILE,
} from "../egress/egress-relay-source.js";
import type { LocalIsolation } from "../options.js";
import { RELAY_FILE, RELAY_NODE_PATH, RELAY_PORTS_DIRECTORY } from "../ports/port-relay-source.js";
import { COMMAND_MARKER_VARIABLE, newCommandMarker } from "../processes/command-marker.js";
import { NAMESPACE_DESCRIPTORS, type NamespaceHolder, NSENTER_PATH } from "../processes/sandbox-namespaces.js";
import type { CgroupDirectory, SandboxRecord } from "../store/sandbox-record.js";
import { type BwrapInput, type BwrapUser, buildBwrapInvocation } from "./bwrap.js";
import { buildEnvironment } from "./environment.js";
import { ACKNOWLEDGED_LAUNCH_GATE_SCRIPT, gated } from "./launch-gate.js";
import { bridgedSpawn, dropTo, type RootBridge } from "./root-bridge.js";
import { syscallFilter } from "./syscall-filter.js";

/** Exit status of a command that could not join its cgroups (it never ran). */
export const JOIN_FAILED_EXIT = 125;
/** What the join step prints on failure; the runner turns it into an error. */
export const JOIN_FAILED_MESSAGE = "sandport: could not join the sandbox's control group";

/** A command's own cgroup, killed and removed when the command ends. */
export type CommandLeaf = CgroupDirectory;

export { SETPRIV_PATH } from "./root-bridge.js";

/** Exactly what to spawn for one command: program, arguments, environment, host cwd, extra input, cgroup leaf, marker. */
export interface SpawnPlan {
  readonly file: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** Host working directory for `spawn`. */
  readonly cwd: string;
  /** Bytes for file descriptor 3 (bubblewrap's `--args 3`), when present. */
  readonly fd3?: Buffer;
  /** The syscall filter, for descriptor `FILTER_DESCRIPTOR` (bubblewrap's `--seccomp`), when present. */
  readonly filter?: Buffer;
  /** The command's own tracking cgroup, killed and removed when it ends. */
  readonly leaf?: CommandLeaf;
  /**
   * True when the runner must create `leaf` and move the command into it,
   * in the background, right after `spawn` (commands without resource
   * limits); otherwise the plan itself joins it in `/bin/sh`, before anything
   * can fork.
   */
  readonly joinLeafAfterSpawn?: boolean;
  /**
   * Under `namespaces`: the command waits inside, before anything of the
   * user's runs, for the spawner's "go" on `GATE_DESCRIPTOR` (see
   * `LAUNCH_GATE_SCRIPT`), which the spawner writes once it has registered it.
   */
  readonly gate?: boolean;
  /** Under `none`: the command's `SANDPORT_LOCAL_COMMAND_ID` value, which every process it starts inherits. */
  readonly marker?: string;
  /** The host user to spawn `file` as (the sandbox user, when the runtime is root); absent: the runtime's own. */
  readonly user?: BwrapUser;
  readonly isolation: LocalIsolation;
  /**
   * Under `namespaceScope: "sandbox"`: the sandbox's namespaces, which the
   * spawner opens (`openNamespaces`) right before `spawn` and passes on at
   * the descriptors of `NAMESPACE_DESCRIPTORS`.
   */
  readonly namespaces?: SharedNamespaces;
}

/** The namespaces of a sandbox that a command joins. */
export interface SharedNamespaces {
  readonly sandboxId: string;
  readonly holder: NamespaceHolder;
  /** The sandbox has the host's network: there is no network namespace to join. */
  readonly network: boolean;
}

/** Inputs of {@link planCommand}. */
export interface PlanInput {
  readonly isolation: LocalIsolation;
  readonly bwrapPath: string;
  readonly readOnlyPaths: readonly string[];
  /** Host directory of the workspace. */
  readonly workspaceDirectory: string;
  /** Workspace path inside the sandbox (`/workspace`). */
  readonly workspaceRoot: string;
  readonly record: SandboxRecord;
  readonly request: ValidatedExecRequest;
  /**
   * The command's tracking leaf directory, if any: already created when the
   * sandbox has limits (the command joins it in `/bin/sh`), created by the
   * runner in the background otherwise.
   */
  readonly leaf?: string;
  /** Who bubblewrap runs as when not the runtime's own user (the runtime is root). */
  readonly sandboxUser?: BwrapUser;
  /** Host ports directory of a sandbox whose declared ports are relayed (namespaces without network). */
  readonly portsDirectory?: string;
  /**
   * Host egress directory and this runtime's proxy socket in it, for a sandbox
   * with an allow list: the egress relay runs beside the command and the proxy
   * variables point at it (see `EGRESS_RELAY_SOURCE`).
   */
  readonly egress?: { readonly directory: string; readonly socket: string };
  /** Join the namespaces of the record's holder (`namespaceScope: "sandbox"`); needs `sandboxUser` (a root runtime). */
  readonly shareNamespaces?: boolean;
  /** Under `namespaces`: run the command under the syscall filter (see `syscall-filter.ts`). */
  readonly syscallFilter?: boolean;
  /**
   * With `sandboxUser`: the root lies under a parent that user cannot pass
   * through; the command starts as root in a mount namespace of its own that
   * lets it through (see `bridgedSpawn`), then becomes that user.
   */
  readonly rootBridge?: RootBridge;
}

/**
 * Turns a validated request into a spawn plan.
 *
 * Under `namespaces`, the command runs behind the launch gate (see
 * `LAUNCH_GATE_SCRIPT`): nothing of it starts before the spawner has
 * registered it. Bubblewrap runs as the sandbox user when the runtime is
 * root (`spawn`'s `uid`/`gid`). Cgroups to join (resource limits) are joined
 * before bubblewrap can fork: the plan starts with a tiny `/bin/sh` step that
 * writes its own pid into each `cgroup.procs` (as the runtime's user, who may)
 * and then `exec`s bubblewrap, through `setpriv` when it must switch to the
 * sandbox user.
 *
 * Under `none`, every command carries its marker in `SANDPORT_LOCAL_COMMAND_ID`. A
 * command whose sandbox has resource limits joins its cgroups before `exec` the
 * same way (limits must hold before it allocates or forks); a shell request
 * joins inside its own `sh -c`, costing no extra process. A command without
 * limits is spawned directly and moved into its leaf in the background right
 * after `spawn` (`joinLeafAfterSpawn`; see `CommandTree` for what that
 * guarantees): the move waits on the kernel, and nothing waits for the move.
 */
export function planCommand(input: PlanInput): SpawnPlan {
  const { request, record } = input;
  const joins = joinFiles(record.cgroups, input.leaf);
  const tracking = record.cgroups?.tracking;
  const leaf: CommandLeaf | undefined =
    input.leaf && tracking ? { version: tracking.version, directory: input.leaf } : undefined;
  const command = request.argv ? [...request.argv] : ["/bin/sh", "-c", request.shell as string];
  if (input.isolation === "namespaces" && input.shareNamespaces) return planShared(input, command, joins, leaf);
  if (input.isolation === "namespaces") {
    const view = sandboxView(input, command);
    const invocation = buildBwrapInvocation({ ...view, command: gated(view.command) });
    const base = {
      env: {},
      cwd: "/",
      fd3: invocation.fd3,
      gate: true,
      ...(input.syscallFilter ? { filter: syscallFilter() } : {}),
      isolation: "namespaces",
      ...(leaf ? { leaf } : {}),
    } as const;
    const user = input.sandboxUser;
    if (user && input.rootBridge) {
      const command = [...dropTo(user), input.bwrapPath, ...invocation.args];
      return { ...bridgedSpawn(input.rootBridge, joins, JOIN_FAILED_MESSAGE, JOIN_FAILED_EXIT, command), ...base };
    }
    if (joins.length === 0) {
      return { file: input.bwrapPath, args: invocation.args, ...base, ...(user ? { user } : {}) };
    }
    const drop = user ? dropTo(user) : [];
    const args = ["-c", joinThenExec(joins.length), "sh", ...joins, ...drop, input.bwrapPath, ...invocation.args];
    return { file: "/bin/sh", args, ...base };
  }
  const marker = newCommandMarker(record.id);
  const env = {
    ...buildEnvironment(input.workspaceDirectory, record.env, request.env),
    [COMMAND_MARKER_VARIABLE]: marker,
  };
  const cwd = hostCwd(input.workspaceDirectory, request);
  const limited = (record.cgroups?.limits.length ?? 0) > 0;
  const base = { env, cwd, isolation: "none", marker, ...(leaf ? { leaf } : {}) } as const;
  if (!limited) {
    const [file, ...args] = command as [string, ...string[]];
    return { file, args, ...base, ...(leaf ? { joinLeafAfterSpawn: true } : {}) };
  }
  if (request.shell !== undefined)
    return { file: "/bin/sh", args: ["-c", `${joinInline(joins)}${request.shell}`], ...base };
  // The joining shell exports PWD to what it execs; an argv command under none gets exactly its env.
  const script = "PWD" in env ? joinThenExec(joins.length) : `unset PWD; ${joinThenExec(joins.length)}`;
  return { file: "/bin/sh", args: ["-c", script, "sh", ...joins, ...command], ...base };
}

/**
 * The host directory a command under `none` starts in: a workspace directory
 * inside the sandbox's workspace directory; any other (`/tmp`) is the host's
 * own, since under `none` commands see the host's filesystem.
 */
export function hostCwd(workspaceDirectory: string, request: ValidatedExecRequest): string {
  const { cwd } = request;
  if (cwd.kind === "sandbox") return cwd.path;
  return cwd.path === "" ? workspaceDirectory : join(workspaceDirectory, cwd.path);
}

/**
 * A command that joins its sandbox's namespaces (`namespaceScope: "sandbox"`),
 * spawned as root: `nsenter` enters the holder's IPC, UTS and (without
 * network) network namespaces from the descriptors the spawner passes on,
 * switches to the sandbox user, and `exec`s bubblewrap, which joins the user
 * and PID namespaces (see `buildBwrapInvocation`'s `shared`). Inside, a
 * `/bin/sh` step closes those descriptors and waits at the launch gate
 * (which it answers once let go: `ACKNOWLEDGED_LAUNCH_GATE_SCRIPT`) before
 * `exec`ing the command. The command carries a marker (`SANDPORT_LOCAL_COMMAND_ID`), as under `none`:
 * processes it leaves in the shared PID namespace are no longer below
 * bubblewrap, and are found by it when the command is stopped or exits.
 * Cgroups to join (limits) are joined first, in `/bin/sh`, as root.
 */
function planShared(
  input: PlanInput,
  command: readonly string[],
  joins: readonly string[],
  leaf?: CommandLeaf,
): SpawnPlan {
  const { record } = input;
  const user = input.sandboxUser;
  if (!record.namespaces || !user) throw new Error("a shared-namespace command needs its sandbox's holder and user");
  const marker = newCommandMarker(record.id);
  const view = sandboxView(input, command);
  const closeAll = Object.values(NAMESPACE_DESCRIPTORS)
    .map((descriptor) => `${descriptor}<&-`)
    .join(" ");
  const invocation = buildBwrapInvocation({
    ...view,
    env: { ...view.env, [COMMAND_MARKER_VARIABLE]: marker },
    command: ["/bin/sh", "-c", `exec 3<&- ${closeAll}; ${ACKNOWLEDGED_LAUNCH_GATE_SCRIPT}`, "sh", ...view.command],
    shared: true,
  });
  const enter = [
    `--ipc=/proc/self/fd/${NAMESPACE_DESCRIPTORS.ipc}`,
    `--uts=/proc/self/fd/${NAMESPACE_DESCRIPTORS.uts}`,
    ...(record.network ? [] : [`--net=/proc/self/fd/${NAMESPACE_DESCRIPTORS.net}`]),
    // The group first (nsenter sets it before the user), so that bubblewrap starts as the sandbox user.
    `--setgid=${user.gid}`,
    `--setuid=${user.uid}`,
    "--",
    input.bwrapPath,
    ...invocation.args,
  ];
  const base = {
    env: {},
    cwd: "/",
    fd3: invocation.fd3,
    gate: true,
    ...(input.syscallFilter ? { filter: syscallFilter() } : {}),
    isolation: "namespaces",
    marker,
    namespaces: { sandboxId: record.id, holder: record.namespaces, network: record.network },
    ...(leaf ? { leaf } : {}),
  } as const;
  if (input.rootBridge) {
    const command = [NSENTER_PATH, ...enter];
    return { ...bridgedSpawn(input.rootBridge, joins, JOIN_FAILED_MESSAGE, JOIN_FAILED_EXIT, command), ...base };
  }
  if (joins.length === 0) return { file: NSENTER_PATH, args: enter, ...base };
  return { file: "/bin/sh", args: ["-c", joinThenExec(joins.length), "sh", ...joins, NSENTER_PATH, ...enter], ...base };
}

/**
 * The command with the port relay started beside it, in its network
 * namespace: `sh` starts `node relay.cjs <ports>` in the background, detached
 * from the command's stdio, then `exec`s the command itself (same pid, same
 * exit status).
 */
/**
 * What a namespaced command sees, whatever its scope: the workspace at its
 * root, the working directory and environment of the request, and, when the
 * sandbox declared ports, the relay mounted and wrapped around the command.
 */
function sandboxView(input: PlanInput, command: readonly string[]): BwrapInput {
  const { record, request } = input;
  const relayed = input.portsDirectory !== undefined && (record.ports?.length ?? 0) > 0;
  const mounts: [string, string][] = [];
  if (relayed)
    mounts.push([process.execPath, RELAY_NODE_PATH], [input.portsDirectory as string, RELAY_PORTS_DIRECTORY]);
  if (input.egress) mounts.push([process.execPath, EGRESS_NODE_PATH], [input.egress.directory, EGRESS_DIRECTORY]);
  const ported = relayed ? withRelay(command, record.ports as readonly number[]) : [...command];
  const environment = buildEnvironment(input.workspaceRoot, record.env, request.env);
  return {
    ...(mounts.length > 0 ? { mounts } : {}),
    workspaceDirectory: input.workspaceDirectory,
    workspaceRoot: input.workspaceRoot,
    cwd: resolveCwd(request.cwd, input.workspaceRoot),
    network: record.network,
    readOnlyPaths: input.readOnlyPaths,
    // The proxy variables first: the launch's or the request's own values win.
    env: input.egress ? { ...proxyEnvironment(), ...environment } : environment,
    command: !input.egress
      ? ported
      : input.shareNamespaces
        ? withSharedEgressRelay(ported, input.egress.socket)
        : withEgressRelay(ported, input.egress.socket),
    ...(input.syscallFilter ? { syscallFilter: true } : {}),
  };
}

function withRelay(command: readonly string[], ports: readonly number[]): string[] {
  const relay = `"$1" ${RELAY_PORTS_DIRECTORY}/${RELAY_FILE} ${ports.join(" ")} </dev/null >/dev/null 2>&1 &`;
  return ["/bin/sh", "-c", `${relay} shift; exec "$@"`, "sh", RELAY_NODE_PATH, ...command];
}

/** `sh -c` script: write `$$` into the first `count` arguments (cgroup.procs files), then exec the rest. */
function joinThenExec(count: number): string {
  const writes = Array.from({ length: count }, (_, index) => `echo $$ > "$${index + 1}"`).join(" && ");
  return `{ ${writes}; } || { echo "${JOIN_FAILED_MESSAGE}" >&2; exit ${JOIN_FAILED_EXIT}; }; shift ${count}; exec "$@"`;
}

/** The same join, as a prefix to the caller's own script (same line, so its line numbers are unchanged). */
function joinInline(files: readonly string[]): string {
  const writes = files.map((file) => `echo $$ > ${quoteShellArg(file)}`).join(" && ");
  return `{ ${writes}; } || { echo "${JOIN_FAILED_MESSAGE}" >&2; exit ${JOIN_FAILED_EXIT}; }; `;
}

/** The proxy variables of a command with an allow list: every scheme through the egress relay, loopback direct. */
function proxyEnvironment(): Record<string, string> {
  const proxy = `http://127.0.0.1:${EGRESS_PROXY_PORT}`;
  const direct = "localhost,127.0.0.1,::1";
  return {
    HTTP_PROXY: proxy,
    HTTPS_PROXY: proxy,
    ALL_PROXY: proxy,
    http_proxy: proxy,
    https_proxy: proxy,
    all_proxy: proxy,
    NO_PROXY: direct,
    no_proxy: direct,
  };
}

/**
 * The command with the egress relay started first, in its network namespace:
 * `sh` makes a FIFO in `/tmp`, starts the relay in the background (detached
 * from the command's stdio), waits for its line on the FIFO (it listens), then
 * `exec`s the command. A relay that exits first writes the line from its
 * subshell instead, so the command still starts (with no way out at all).
 */
function withEgressRelay(command: readonly string[], socket: string): string[] {
  const relay = `"$1" ${EGRESS_DIRECTORY}/${EGRESS_RELAY_FILE} own ${EGRESS_PROXY_PORT} ${EGRESS_DIRECTORY}/$2 "$r"`;
  const script = [
    // $$ is the same in every command's own PID namespace: the FIFO's name must be unique in the shared /tmp.
    "r=$(mktemp -u /tmp/.sandport-egress-XXXXXXXXXX)",
    `if mkfifo -m 600 "$r"; then ( ${relay}; [ -p "$r" ] && echo exited > "$r" ) </dev/null >/dev/null 2>&1 & read _ < "$r"; rm -f "$r"; fi`,
    'shift 2; exec "$@"',
  ].join("\n");
  return ["/bin/sh", "-c", script, "sh", EGRESS_NODE_PATH, socket, ...command];
}

/** How `/proc/net/tcp` lists a socket listening on the relay's address (`127.0.0.1:3128`, state `0A`). */
const RELAY_LISTENING = `: 0100007F:${EGRESS_PROXY_PORT.toString(16).toUpperCase().padStart(4, "0")} 00000000:0000 0A `;

/**
 * The command, in a sandbox whose commands share one network namespace
 * (`namespaceScope: "sandbox"`), after making sure the sandbox's one egress
 * relay listens there: a `grep` of `/proc/net/tcp` (that namespace's sockets)
 * finds it, or the relay's `shared` launcher starts it (once, whichever
 * command comes first) and returns once the address answers. The relay then
 * lives, in a session of its own, until destroy kills the sandbox's PID
 * namespace. No FIFO, no descriptor of the command is left with it.
 */
function withSharedEgressRelay(command: readonly string[], socket: string): string[] {
  const launch = `"$1" ${EGRESS_DIRECTORY}/${EGRESS_RELAY_FILE} shared ${EGRESS_PROXY_PORT} ${EGRESS_DIRECTORY}/$2`;
  const script = `grep -qsF '${RELAY_LISTENING}' /proc/net/tcp || ${launch} </dev/null >/dev/null 2>&1; shift 2; exec "$@"`;
  return ["/bin/sh", "-c", script, "sh", EGRESS_NODE_PATH, socket, ...command];
}
