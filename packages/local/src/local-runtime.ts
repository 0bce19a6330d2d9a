// Longer than the house's ~400 lines for a reason: this is the port itself, one short documented method per
// member, each delegating to the sandboxes/, commands/ and files/ modules where the work is.
import {
  assertCapabilitiesConsistent,
  type CommandRef,
  type CommandStatus,
  type DeclaredCapabilities,
  type ExecEvent,
  type ExecRequest,
  type ExecResult,
  type FileInfo,
  type FileInput,
  type ForkOptions,
  type Labels,
  type LaunchSpec,
  MAX_TIMEOUT_MS,
  normalizeWorkspacePath,
  type OperationTimeouts,
  type OpOptions,
  type PortEndpoint,
  type ReadOptions,
  type ReadStreamOptions,
  refuseReservedEnv,
  type SandboxProcess,
  type SandboxRuntime,
  type SnapshotOptions,
  type SnapshotRef,
  SPECIFICATION_VERSION,
  type StartCommandRequest,
  splitStartCommandRequest,
  type Terminal,
  type TerminalRequest,
  type ValidatedExecRequest,
  validateExecRequest,
  validateFiles,
  validateForkOptions,
  validateLabelQuery,
  validateLaunchSpec,
  validatePort,
  validateReadOptions,
  validateReadStreamOptions,
  validateSnapshotId,
  validateSnapshotOptions,
  validateTerminalRequest,
} from "@sandport/core";
import { EventQueue, runOperation } from "@sandport/core/adapter";
import { checkRef } from "./commands/async-commands.js";
import { RunningCommands } from "./commands/running-commands.js";
import type { WorkspaceFiles } from "./files/workspace-files.js";
import type { LocalHandle } from "./handle.js";
import { judgeHost } from "./host-verdicts.js";
import { LOCAL_PROVIDER, type LocalRuntimeOptions, type ResolvedLocalOptions } from "./options.js";
import { COMMAND_MARKER_VARIABLE } from "./processes/command-marker.js";
import { resolveOptions } from "./resolve-options.js";
import { AsyncStarts } from "./sandboxes/async-starts.js";
import { CommandRuns, toLocalError } from "./sandboxes/command-runs.js";
import { streamWorkspaceFile } from "./sandboxes/file-stream.js";
import type { DefaultResourcesReport } from "./sandboxes/launch-resources.js";
import { SandboxAccess } from "./sandboxes/sandbox-access.js";
import { forkSandbox } from "./sandboxes/sandbox-fork.js";
import { openLocalTerminal } from "./sandboxes/terminal-runs.js";
import { LocalSnapshots } from "./snapshots/local-snapshots.js";
import type { LeftoverReport as LocalLeftoverReport } from "./store/leftover-report.js";

/**
 * The embedded Sandport runtime: a sandbox is a fresh directory on this
 * machine, and commands are real processes in it.
 *
 * Under `isolation: "namespaces"` (the default) each command runs under
 * bubblewrap: its workspace, mounted at `/workspace` (the `workspaceRoot` option), is the only writable path;
 * `/usr` and a few `/etc` entries are read-only; it has its own PID, user, IPC,
 * UTS, cgroup and (unless the launch asks for `network: "all"` with the
 * `hostNetwork` option) network namespace; no capabilities; host-global `/proc` entries read-only; and an
 * environment built only from the launch and request env (plus `PATH`,
 * `HOME=/workspace`, `TMPDIR=/workspace/.tmp`). When this process is root,
 * each sandbox's commands run as an unprivileged uid of its own (`sandboxUids`),
 * which owns its workspace, or as the one `sandboxUser` when that is given.
 * Where bubblewrap cannot create namespaces, `launch` and `exec` refuse with
 * `UNSUPPORTED`; nothing ever falls back to `none` by itself. With
 * `namespaceScope: "sandbox"` (root only) the PID, network, IPC and UTS
 * namespaces are the sandbox's, made at launch and joined by every command
 * (see `startNamespaceHolder`); `destroy` kills everything in them.
 *
 * Under `isolation: "none"` commands are host processes with the workspace
 * directory as cwd and `HOME`, in their own process group and, where a writable
 * cgroup exists, their own cgroup, and their environment carries one variable
 * Sandport adds, `SANDPORT_LOCAL_COMMAND_ID` (a per-command marker that children
 * inherit). A timeout, abort, output cap or `destroy`, and a command's own exit,
 * kill what the command started if it stayed in the group or the cgroup or
 * kept the marker, so `setsid` and double-fork escapees die too, with or
 * without cgroups; one that clears its environment and also left the group
 * (and, with cgroups, forked in the instant before the command was moved into
 * its cgroup) can survive. Nothing can keep such a command off the network or
 * out of the rest of the filesystem, so `network: false` is refused there. Request paths still use
 * the logical root `/workspace`; commands see the host directory (`$HOME`).
 *
 * Files move through the host filesystem directly, resolved from the held
 * workspace root so that a command racing them cannot redirect them outside
 * (see `WorkspaceFiles`).
 * Sandboxes, labels and async commands live on disk under `root`, so any
 * runtime with the same `root` and `owner`, in any process, can find them.
 * `LaunchSpec.lifetimeMs` is recorded; a sandbox past it is destroyed the next
 * time a runtime looks it up (there is no background reaper).
 */
export class LocalRuntime implements SandboxRuntime<LocalHandle> {
  /** The port version this runtime implements. */
  readonly specificationVersion = SPECIFICATION_VERSION;
  /** Always `"local"`. */
  readonly provider = LOCAL_PROVIDER;
  /** Where isolated commands see the workspace, and the root of every request path: the `workspaceRoot` option, default `/workspace`. */
  readonly workspaceRoot: string;
  /** See `localCapabilities`; the isolation mode is the configured one. */
  readonly capabilities: DeclaredCapabilities;
  /**
   * The default limits (the `defaultResources` option; built in: 512
   * processes, 2 GiB of memory, a 4 GiB workspace) that a launch gets for
   * each field of `resources` it leaves unset: `applied` are those this
   * process can enforce, `notApplied` the others with the reason (no usable
   * cgroup controller, `cgroups: "disabled"`, no way to bound a workspace).
   * An applied disk default is still left out of a launch while the host file
   * system under the root has less free space than the bound. What a sandbox
   * got is its handle's `resources`.
   */
  readonly defaultResources: DefaultResourcesReport;
  readonly #options: ResolvedLocalOptions;
  readonly #running = new RunningCommands();
  readonly #access: SandboxAccess;
  readonly #commands: CommandRuns;
  readonly #starts: AsyncStarts;
  readonly #snapshots: LocalSnapshots;
  /**
   * Freezes every process of the sandbox (the cgroup v2 freezer) and resolves
   * once the kernel says all are frozen; from then on `exec`, `execStream`,
   * `spawn`, `openTerminal` and `startCommand` are refused with
   * `INVALID_REQUEST` (`details.state: "stopped"`) until `start`, from any
   * runtime over the same root: the state is recorded on disk. File
   * operations, `snapshot`, `portEndpoint` and the async command lookups keep
   * working (the workspace is a host directory; a port's connections wait for
   * `start`). Run budgets keep counting while stopped: a command whose
   * timeout passes is killed (SIGKILL reaches frozen processes). Stopping a
   * stopped sandbox is a no-op; `destroy` thaws it first, then kills
   * everything as usual. Present only where this process can freeze
   * sandboxes (see `lifecycle` in `localCapabilities`), and then every launch
   * gives its sandbox a freezer cgroup or is refused with `UNSUPPORTED`; a
   * sandbox launched without one (by a runtime with `cgroups: "disabled"`)
   * is refused `UNSUPPORTED`.
   */
  readonly stop?: (handle: LocalHandle, op?: OpOptions) => Promise<void>;
  /** Thaws a stopped sandbox's processes, which continue where they were, and lets commands in again. Starting a running sandbox is a no-op. Present with `stop`. */
  readonly start?: (handle: LocalHandle, op?: OpOptions) => Promise<void>;

  /**
   * Validates the options. The only I/O: deciding, once per process, whether
   * sandboxes can be stopped (reads `/proc/self/cgroup` and
   * `/proc/self/mountinfo`, and checks write access to this process's own
   * cgroup; see `freezerSupport`), which resource limits it can place (the
   * same files, plus the controller lists of its own cgroups; see
   * `limitsSupport`) and whether it can bound workspaces (`/proc/self/status`,
   * `/proc/self/uid_map`, access to `/dev/loop-control` and the mount tools;
   * see `diskSupport`). Nothing is created. The root and bubblewrap are looked at on first use.
   */
  constructor(options: LocalRuntimeOptions = {}) {
    this.#options = resolveOptions(options);
    this.workspaceRoot = this.#options.workspaceRoot;
    const { lifecycle, limits, capabilities } = judgeHost(this.#options);
    this.capabilities = capabilities;
    this.#access = new SandboxAccess(this.#options, this.#running, limits, lifecycle.ok);
    this.defaultResources = this.#access.defaults;
    if (lifecycle.ok) {
      this.stop = (handle, op) => this.#lifecycle(handle, op, "stop");
      this.start = (handle, op) => this.#lifecycle(handle, op, "start");
    }
    this.#commands = new CommandRuns(this.#options, this.#access, this.#running);
    this.#starts = new AsyncStarts(this.#options, this.#access, this.#running);
    this.#snapshots = new LocalSnapshots(this.#options, () => this.#access.store());
    assertCapabilitiesConsistent(this);
  }

  /**
   * Creates a sandbox. `template` is refused (the host's `/usr` is the only
   * image). Each field of `resources` left unset gets the runtime's applicable
   * default (see {@link defaultResources}); the handle's `resources` are every
   * limit the sandbox got. With `from`, its workspace starts as a copy of the snapshot's
   * files (`NOT_FOUND` when there is no such snapshot of ours). With
   * `resources.diskMiB` (where `diskLimit` is declared), the workspace is a
   * directory on an ext4 image of that size loop-mounted in the sandbox
   * directory (see `makeWorkspaceDisk`); a snapshot whose files do not fit is
   * `INVALID_REQUEST`.
   */
  async launch(spec: LaunchSpec = {}, op?: OpOptions): Promise<LocalHandle> {
    const clean = validateLaunchSpec(spec, LOCAL_PROVIDER);
    refuseReservedEnv(clean.env, [COMMAND_MARKER_VARIABLE], "env", LOCAL_PROVIDER);
    return this.#operation(op, this.#deadline("launch", "launchMs"), async (signal) => {
      const seed = clean.from === undefined ? undefined : await this.#snapshots.seedFrom(clean.from);
      return this.#access.launch(clean, signal, seed);
    });
  }

  /**
   * Runs a command to completion. Timeout, output cap and abort kill its whole
   * process tree; when it exits, whatever it left running is killed. Under
   * `isolation: "none"` its environment is `PATH`, `HOME`, `TMPDIR`, the launch
   * and request env, and `SANDPORT_LOCAL_COMMAND_ID` (reserved: an env that sets it is refused).
   */
  async exec(handle: LocalHandle, request: ExecRequest, op?: OpOptions): Promise<ExecResult> {
    const id = this.#access.checkHandle(handle, "exec");
    const validated = this.#validateExec(request);
    return this.#operation(op, this.#execDeadline(validated), (signal) =>
      this.#commands.run(id, validated, signal).then((outcome) => this.#commands.result(outcome)),
    );
  }

  /**
   * Runs a command, yielding `started`, output chunks as they arrive, then
   * `exited`. Leaving the loop early kills the command. Invalid input rejects
   * on the first iteration.
   */
  async *execStream(handle: LocalHandle, request: ExecRequest, op?: OpOptions): AsyncIterable<ExecEvent> {
    const id = this.#access.checkHandle(handle, "execStream");
    const validated = this.#validateExec(request);
    const queue = new EventQueue<ExecEvent>();
    const consumerGone = new AbortController();
    const run = this.#operation(op, this.#execDeadline(validated), (signal) =>
      this.#commands.stream(id, validated, AbortSignal.any([signal, consumerGone.signal]), queue),
    );
    run.catch((error: unknown) => queue.fail(error));
    try {
      yield* queue;
    } finally {
      consumerGone.abort(new Error("the stream's consumer stopped reading"));
    }
  }

  /**
   * Starts a command whose stdin stays open (see `SandboxProcess`) and resolves
   * once it runs. Its run budget is the request's `timeoutMs`, else
   * `runBudgetMs`; `op.timeoutMs` bounds only the start; aborting `op.signal`
   * at any time kills it, as does `kill()` or `destroy`.
   */
  async spawn(handle: LocalHandle, request: ExecRequest, op?: OpOptions): Promise<SandboxProcess> {
    const id = this.#access.checkHandle(handle, "spawn");
    const validated = this.#validateExec(request);
    return this.#operation(op, this.#deadline("spawn", "launchMs"), (signal) =>
      this.#commands.spawn(id, validated, signal, op?.signal),
    );
  }

  /**
   * Starts a program on a pseudo-terminal inside the sandbox (see `Terminal`)
   * and resolves once it runs. The terminal is allocated by a small Perl
   * program run as the command, under the same isolation as `exec` (under
   * bubblewrap, in the command's own devpts); the program is the leader of a
   * new session on it, so job control, `stty` and SIGWINCH work. Its run
   * budget is the request's `timeoutMs`, else `runBudgetMs`; `op.timeoutMs`
   * bounds only the start; aborting `op.signal` at any time kills it, as do
   * `kill()` and `destroy`. Without Perl where commands run it rejects `UNSUPPORTED`.
   */
  async openTerminal(handle: LocalHandle, request: TerminalRequest, op?: OpOptions): Promise<Terminal> {
    const id = this.#access.checkHandle(handle, "openTerminal");
    const validated = validateTerminalRequest(request, { root: this.workspaceRoot, provider: LOCAL_PROVIDER });
    refuseReservedEnv(validated.command.env, [COMMAND_MARKER_VARIABLE], "env", LOCAL_PROVIDER);
    return this.#operation(op, this.#deadline("openTerminal", "launchMs"), (signal) =>
      openLocalTerminal(this.#commands, id, validated, signal, op?.signal),
    );
  }

  /** Writes files after checking every path (including symlinks on disk); nothing is written if any is refused. */
  async writeFiles(handle: LocalHandle, files: readonly FileInput[], op?: OpOptions): Promise<void> {
    const id = this.#access.checkHandle(handle, "writeFiles");
    const validated = validateFiles(files, { root: this.workspaceRoot, provider: LOCAL_PROVIDER });
    return this.#operation(op, this.#deadline("writeFiles", "fileMs"), async (signal) =>
      (await this.#files(id)).write(validated, signal),
    );
  }

  /**
   * Reads a file's bytes. A final symlink is refused; a missing file is
   * `NOT_FOUND`; one larger than `op.maxBytes` (default 64 MiB) is
   * `OUTPUT_LIMIT`, refused from the opened file's size before any byte is read.
   */
  async readFile(handle: LocalHandle, path: string, options?: ReadOptions): Promise<Uint8Array> {
    const { op, maxBytes } = validateReadOptions(options, LOCAL_PROVIDER);
    return this.#fileCall(handle, path, op, "readFile", false, (files, relative) => files.read(relative, maxBytes));
  }

  /**
   * Reads a file in chunks of at most 1 MiB, each read from the file when
   * the consumer asks for the next, so the caller holds one chunk at a time
   * (see `streamWorkspaceFile`). The file is opened as `readFile` opens it
   * (a final symlink, a path leading out or a file that is not regular is
   * `INVALID_REQUEST`, a missing one `NOT_FOUND`) and read up to its size
   * then; what a command does to the path afterwards cannot redirect the
   * stream. `op.maxBytes` (no default) refuses a larger file with
   * `OUTPUT_LIMIT` before the first chunk. The whole stream is bounded by
   * `op.timeoutMs`, else `fileMs`. Aborting, the deadline, a `destroy` by
   * this runtime (`NOT_FOUND`) and leaving the loop early close the file at
   * once; a destroy by another runtime ends the stream with `NOT_FOUND` within
   * a second. Invalid input rejects on the first iteration.
   */
  async *readFileStream(handle: LocalHandle, path: string, options?: ReadStreamOptions): AsyncIterable<Uint8Array> {
    const id = this.#access.checkHandle(handle, "readFileStream");
    const { op, maxBytes } = validateReadStreamOptions(options, LOCAL_PROVIDER);
    const relative = normalizeWorkspacePath(path, { root: this.workspaceRoot, provider: LOCAL_PROVIDER });
    const host = {
      files: (sandbox: string) => this.#files(sandbox),
      requireRecord: (sandbox: string) => this.#access.store().requireUndoomed(sandbox),
      running: this.#running,
    };
    yield* streamWorkspaceFile(host, {
      id,
      path: relative,
      maxBytes,
      signal: op?.signal,
      timeoutMs: op?.timeoutMs ?? this.#options.timeouts.fileMs,
    });
  }

  /** Entries of a directory, sorted by name. */
  async listDir(handle: LocalHandle, path: string, op?: OpOptions): Promise<FileInfo[]> {
    return this.#fileCall(handle, path, op, "listDir", true, (files, relative) => files.list(relative));
  }

  /** One entry's metadata; a symlink is reported as itself. */
  async stat(handle: LocalHandle, path: string, op?: OpOptions): Promise<FileInfo> {
    return this.#fileCall(handle, path, op, "stat", true, (files, relative) => files.stat(relative));
  }

  /** Creates a directory and its parents. */
  async mkdir(handle: LocalHandle, path: string, op?: OpOptions): Promise<void> {
    return this.#fileCall(handle, path, op, "mkdir", true, (files, relative) => files.mkdir(relative));
  }

  /** Removes a file, symlink or directory tree; absent is fine. The workspace root itself is refused. */
  async remove(handle: LocalHandle, path: string, op?: OpOptions): Promise<void> {
    return this.#fileCall(handle, path, op, "remove", false, (files, relative) => files.remove(relative));
  }

  /**
   * Where to reach `port` of the sandbox from this machine. Under `none`, and with
   * `network: "all"` and `hostNetwork`, that is the host's own port
   * (`http://127.0.0.1:<port>`, no headers: open to the host). Otherwise, the port must
   * be declared at launch (`LaunchSpec.ports`, else `INVALID_REQUEST`): the endpoint is a
   * host port on `127.0.0.1` that this process forwards to the port inside each
   * command's network namespace, through a Unix socket, without giving the sandbox any
   * network, and its `headers` carry a credential every request must send (else `401`,
   * nothing reaching the sandbox; see the README's "Ports").
   */
  async portEndpoint(handle: LocalHandle, port: number, op?: OpOptions): Promise<PortEndpoint> {
    const id = this.#access.checkHandle(handle, "portEndpoint");
    const checked = validatePort(port, LOCAL_PROVIDER);
    return this.#operation(op, this.#deadline("portEndpoint", "lookupMs"), () =>
      this.#access.portEndpoint(id, checked),
    );
  }

  /** Rebuilds a handle from an id, in any process. `undefined` when absent; `FOREIGN_SANDBOX` when not ours. */
  async getById(id: string, op?: OpOptions): Promise<LocalHandle | undefined> {
    return this.#operation(op, this.#deadline("getById", "lookupMs"), () => this.#access.getById(id));
  }

  /** Our sandboxes carrying every given label; reserved keys such as `sandport.launch-key` may be searched. */
  async findByLabels(labels: Labels, op?: OpOptions): Promise<LocalHandle[]> {
    const query = validateLabelQuery(labels, LOCAL_PROVIDER);
    return this.#operation(op, this.#deadline("findByLabels", "lookupMs"), () => this.#access.findByLabels(query));
  }

  /**
   * What this runtime reclaimed over its root: its reclaim runs once, at its
   * first launch or listing (`findByLabels`, so `sandport sweep`), or at this
   * call, whichever comes first, and this resolves with its report. It
   * removes what it can prove this root's and owner's and orphaned: staging
   * directories of launches whose process is gone (or is this one, no longer
   * launching them), sandbox cgroups named for this root and owner of such
   * launches whose sandbox the root does not hold and which hold no process,
   * and egress proxy sockets of gone processes in this owner's sandboxes.
   * Never a live sandbox's, another owner's or root's. A leftover it could not
   * remove is reported with why (`reclaimed: false`), for the next runtime.
   */
  async reclaimLeftovers(op?: OpOptions): Promise<LocalLeftoverReport> {
    return this.#operation(op, this.#deadline("reclaimLeftovers", "lookupMs"), () => this.#access.store().leftovers());
  }

  /** Kills everything running in the sandbox, removes it and verifies it is gone. Absent is success. */
  async destroy(handle: LocalHandle, op?: OpOptions): Promise<void> {
    const id = this.#access.checkHandle(handle, "destroy");
    return this.#operation(op, this.#deadline("destroy", "destroyMs"), () => this.#access.destroy(id));
  }

  /**
   * Starts a command that outlives this process: a detached supervisor runs it,
   * enforces its timeout and output cap and records its output and exit under
   * the sandbox's metadata area. A repeated `sessionId`, from any process,
   * returns the existing command. Resolves once the supervisor is spawned.
   */
  async startCommand(handle: LocalHandle, request: StartCommandRequest, op?: OpOptions): Promise<CommandRef> {
    const id = this.#access.checkHandle(handle, "startCommand");
    const { sessionId, execRequest } = splitStartCommandRequest(request, LOCAL_PROVIDER);
    const validated = this.#validateExec(execRequest);
    return this.#operation(op, this.#deadline("startCommand", "lookupMs"), (signal) =>
      this.#starts.start(id, sessionId, validated, signal),
    );
  }

  /**
   * Where a started command is: `running`, or `exited` with its status (`null` if killed, 255 if it vanished)
   * and the `limit` it was stopped at, judged as `exec`'s is (its supervisor reads the sandbox's counters
   * around it, and a bounded workspace's file system after a failure); `commandLogs` carries the same `limit`.
   */
  async commandStatus(handle: LocalHandle, ref: CommandRef, op?: OpOptions): Promise<CommandStatus> {
    const id = this.#access.checkHandle(handle, "commandStatus");
    const checked = checkRef(ref);
    return this.#operation(op, this.#deadline("commandStatus", "lookupMs"), () => this.#starts.status(id, checked));
  }

  /** A started command's output so far, complete once it has exited. */
  async commandLogs(handle: LocalHandle, ref: CommandRef, op?: OpOptions): Promise<ExecResult> {
    const id = this.#access.checkHandle(handle, "commandLogs");
    const checked = checkRef(ref);
    return this.#operation(op, this.#deadline("commandLogs", "lookupMs"), () => this.#starts.logs(id, checked));
  }

  /**
   * Copies the sandbox's workspace into a snapshot (`contents: "filesystem"`),
   * kept under the root until `deleteSnapshot`. The copy never follows a
   * symlink and never reads outside the workspace; it is not atomic: a
   * command writing meanwhile may leave a file half-written in it, so take
   * snapshots between commands. Processes, `/tmp` outside the workspace,
   * FIFOs, sockets and device files are not kept; hard links become copies.
   * Its cost is a copy of every file (a reflink where the file system
   * clones: btrfs, XFS), bounded by the call's deadline (`launchMs`).
   */
  async snapshot(handle: LocalHandle, options?: SnapshotOptions): Promise<SnapshotRef> {
    const id = this.#access.checkHandle(handle, "snapshot");
    const { op, labels } = validateSnapshotOptions(options, LOCAL_PROVIDER);
    return this.#operation(op, this.#deadline("snapshot", "launchMs"), async (signal) => {
      await this.#access.requireLive(id);
      return this.#snapshots.take(id, await this.#access.workspaceDirectory(id), labels, signal);
    });
  }

  /** Our snapshots carrying every given label (`{}`: all of ours), in id order. */
  async listSnapshots(labels: Labels, op?: OpOptions): Promise<SnapshotRef[]> {
    const query = validateLabelQuery(labels, LOCAL_PROVIDER);
    return this.#operation(op, this.#deadline("listSnapshots", "lookupMs"), () => this.#snapshots.list(query));
  }

  /** Deletes a snapshot of ours and verifies it gone; absent resolves; a foreign one is `FOREIGN_SANDBOX`. */
  async deleteSnapshot(snapshot: SnapshotRef | string, op?: OpOptions): Promise<void> {
    const id = validateSnapshotId(snapshot, "snapshot", LOCAL_PROVIDER);
    return this.#operation(op, this.#deadline("deleteSnapshot", "destroyMs"), () => this.#snapshots.delete(id));
  }

  /**
   * Launches a new sandbox that is a copy of this one (see `forkSandbox`):
   * the same labels (or `options.labels`), launch env, network, ports, limits
   * and remaining lifetime, no launch key, and a workspace copied while the source's
   * processes are frozen (where it has a freezer; otherwise as `snapshot`
   * copies). Memory is not copied: nothing of the source runs in the fork.
   * The source keeps running. Bounded by `launchMs`.
   */
  async fork(handle: LocalHandle, options?: ForkOptions): Promise<LocalHandle> {
    const id = this.#access.checkHandle(handle, "fork");
    const { op, labels } = validateForkOptions(options, LOCAL_PROVIDER);
    return this.#operation(op, this.#deadline("fork", "launchMs"), (signal) =>
      forkSandbox(this.#access, { id, labels }, signal),
    );
  }

  #lifecycle(handle: LocalHandle, op: OpOptions | undefined, operation: "stop" | "start"): Promise<void> {
    const id = this.#access.checkHandle(handle, operation);
    return this.#operation(op, this.#deadline(operation, "lifecycleMs"), (signal) =>
      operation === "stop" ? this.#access.stop(id, signal) : this.#access.start(id, signal),
    );
  }

  #validateExec(request: ExecRequest): ValidatedExecRequest {
    const valid = validateExecRequest(request, { root: this.workspaceRoot, provider: LOCAL_PROVIDER });
    refuseReservedEnv(valid.env, [COMMAND_MARKER_VARIABLE], "env", LOCAL_PROVIDER);
    return valid;
  }

  async #fileCall<T>(
    handle: LocalHandle,
    path: string,
    op: OpOptions | undefined,
    operation: string,
    allowRoot: boolean,
    task: (files: WorkspaceFiles, relative: string) => Promise<T>,
  ): Promise<T> {
    const id = this.#access.checkHandle(handle, operation);
    const relative = normalizeWorkspacePath(path, { root: this.workspaceRoot, allowRoot, provider: LOCAL_PROVIDER });
    return this.#operation(op, this.#deadline(operation, "fileMs"), async () => task(await this.#files(id), relative));
  }

  #files(id: string): Promise<WorkspaceFiles> {
    return this.#access.files(id);
  }

  #deadline(operation: string, kind: keyof OperationTimeouts) {
    return { provider: LOCAL_PROVIDER, operation, defaultTimeoutMs: this.#options.timeouts[kind] };
  }

  /** `runOperation`: the per-call options validated, the deadline applied, anything unclassified `UNEXPECTED`. */
  #operation<T>(
    op: OpOptions | undefined,
    context: { provider: string; operation: string; defaultTimeoutMs: number },
    task: (signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    return runOperation(op, { ...context, mapError: toLocalError }, (call) => task(call.signal));
  }

  /** An exec's call deadline: its run budget plus the kill grace plus slack, so the run budget always fires first. */
  #execDeadline(request: ValidatedExecRequest) {
    const budget = request.timeoutMs ?? this.#options.runBudgetMs;
    const defaultTimeoutMs = Math.min(
      MAX_TIMEOUT_MS,
      budget + this.#options.killGraceMs + this.#options.timeouts.execGraceMs,
    );
    return { provider: LOCAL_PROVIDER, operation: "exec", defaultTimeoutMs };
  }
}
