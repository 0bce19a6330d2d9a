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
  type OpOptions,
  type PortEndpoint,
  type ReadOptions,
  type SandboxProcess,
  type SandboxRuntime,
  type SandportError,
  type SnapshotOptions,
  type SnapshotRef,
  SPECIFICATION_VERSION,
  type StartCommandRequest,
  type Terminal,
  type TerminalRequest,
} from "@sandport/core";
import { commandLogs, commandStatus, startCommand } from "./async-commands.js";
import { daytonaCapabilities } from "./capabilities.js";
import { DaytonaContext } from "./context.js";
import { exec, execStream } from "./exec.js";
import { listDir, mkdir, remove, stat } from "./file-ops.js";
import { readFile, writeFiles } from "./files.js";
import { fork } from "./fork.js";
import { type DaytonaHandle, PROVIDER } from "./handle.js";
import { launch, launchDetached, ready } from "./launch.js";
import { destroy, start, stop } from "./lifecycle.js";
import { findByLabels, getById } from "./lookup.js";
import { type DaytonaRuntimeOptions, resolveOptions } from "./options.js";
import { portEndpoint } from "./ports.js";
import { recreate } from "./recreate.js";
import { type DaytonaSandboxDetails, sandboxDetails } from "./sandbox-details.js";
import { deleteSnapshot, listSnapshots, snapshot } from "./snapshots.js";
import { spawn } from "./spawn.js";
import { openTerminal } from "./terminal.js";

/**
 * The Sandport runtime for Daytona sandboxes, through the Daytona SDK
 * (`@daytona/sdk`, or `@daytonaio/sdk`; an optional peer, loaded on first use).
 *
 * The one SDK client it builds gets the credentials, the API URL and the
 * target together, so nothing comes from `DAYTONA_*` variables or `.env`
 * files. Sandboxes carry an ownership label (`sandport.owner`) and a launch
 * key; others are never listed, reattached or destroyed. Every call has a
 * deadline; every command is sent with a timeout.
 *
 * ```ts
 * const runtime = new DaytonaRuntime({ apiKey, owner: "ci" });
 * const sandbox = await runtime.launch({ labels: { job: "42" } });
 * await runtime.exec(sandbox, { argv: ["echo", "hi"] });
 * await runtime.destroy(sandbox);
 * ```
 */
export class DaytonaRuntime implements SandboxRuntime<DaytonaHandle> {
  /** The port version this runtime implements. */
  readonly specificationVersion = SPECIFICATION_VERSION;
  /** Always `"daytona"`. */
  readonly provider = PROVIDER;
  /** Absolute workspace directory inside each sandbox (default `/home/daytona/workspace`). */
  readonly workspaceRoot: string;
  /** See {@link daytonaCapabilities}. */
  readonly capabilities: DeclaredCapabilities = daytonaCapabilities;
  readonly #context: DaytonaContext;

  /** Validates the options; no I/O happens until the first call. */
  constructor(options: DaytonaRuntimeOptions) {
    const resolved = resolveOptions(options);
    this.workspaceRoot = resolved.workspaceRoot;
    this.#context = new DaytonaContext(resolved, options.sdk, options.onBackgroundError);
    assertCapabilitiesConsistent(this);
  }

  /** Creates a sandbox with ownership and launch-key labels and explicit lifecycle intervals; creates the workspace. */
  launch(spec?: LaunchSpec, op?: OpOptions): Promise<DaytonaHandle> {
    return launch(this.#context, spec, op);
  }

  /** Creates a sandbox and resolves once Daytona accepted it; {@link ready} waits until it can be used. */
  launchDetached(spec?: LaunchSpec, op?: OpOptions): Promise<DaytonaHandle> {
    return launchDetached(this.#context, spec, op);
  }

  /** Waits until a sandbox (from `launchDetached`, or still booting) is started, and creates its workspace. */
  ready(handle: DaytonaHandle, op?: OpOptions): Promise<void> {
    return ready(this.#context, handle, op);
  }

  /** Runs a command to completion (`executeCommand`); stdout and stderr come back merged. */
  exec(handle: DaytonaHandle, request: ExecRequest, op?: OpOptions): Promise<ExecResult> {
    return exec(this.#context, handle, request, op);
  }

  /** Runs a command in its own session, yielding `started`, output as it arrives, then `exited`. */
  execStream(handle: DaytonaHandle, request: ExecRequest, op?: OpOptions): AsyncIterable<ExecEvent> {
    return execStream(this.#context, handle, request, op);
  }

  /** Starts a command whose stdin stays open, in its own session. */
  spawn(handle: DaytonaHandle, request: ExecRequest, op?: OpOptions): Promise<SandboxProcess> {
    return spawn(this.#context, handle, request, op);
  }

  /**
   * Starts a program on a terminal of the sandbox (the daemon's PTY session,
   * through the SDK's `createPty`) and resolves once it runs. See
   * `openTerminal` in `terminal.ts`: an exit by a signal reports no code and no signal.
   */
  openTerminal(handle: DaytonaHandle, request: TerminalRequest, op?: OpOptions): Promise<Terminal> {
    return openTerminal(this.#context, handle, request, op);
  }

  /** Writes all files in one bulk upload. */
  writeFiles(handle: DaytonaHandle, files: readonly FileInput[], op?: OpOptions): Promise<void> {
    return writeFiles(this.#context, handle, files, op);
  }

  /** Reads one file's bytes. */
  readFile(handle: DaytonaHandle, path: string, op?: ReadOptions): Promise<Uint8Array> {
    return readFile(this.#context, handle, path, op);
  }

  /** Destroys the sandbox and resolves once it is verified gone. */
  destroy(handle: DaytonaHandle, op?: OpOptions): Promise<void> {
    return destroy(this.#context, handle, op);
  }

  /** Starts a command in its own Daytona session; idempotent on `sessionId`. */
  startCommand(handle: DaytonaHandle, request: StartCommandRequest, op?: OpOptions): Promise<CommandRef> {
    return startCommand(this.#context, handle, request, op);
  }

  /** Where a started command is. */
  commandStatus(handle: DaytonaHandle, ref: CommandRef, op?: OpOptions): Promise<CommandStatus> {
    return commandStatus(this.#context, handle, ref, op);
  }

  /** A started command's output so far. */
  commandLogs(handle: DaytonaHandle, ref: CommandRef, op?: OpOptions): Promise<ExecResult> {
    return commandLogs(this.#context, handle, ref, op);
  }

  /** Rebuilds a handle from an id; `undefined` when absent, `FOREIGN_SANDBOX` when not ours. */
  getById(id: string, op?: OpOptions): Promise<DaytonaHandle | undefined> {
    return getById(this.#context, id, op);
  }

  /** Every sandbox of ours carrying all the labels (`{}`: all of ours), across every page of the list API. */
  findByLabels(labels: Labels, op?: OpOptions): Promise<DaytonaHandle[]> {
    return findByLabels(this.#context, labels, op);
  }

  /**
   * Takes a Daytona snapshot of a started sandbox (`contents: "filesystem"`):
   * the sandbox is `snapshotting` for a moment and keeps running;
   * `launch({ from })` starts new sandboxes from it. Its name carries its
   * owner, source and labels (Daytona keeps no labels on snapshots), so labels
   * too long for a name are refused (`UNSUPPORTED`).
   */
  snapshot(handle: DaytonaHandle, options?: SnapshotOptions): Promise<SnapshotRef> {
    return snapshot(this.#context, handle, options);
  }

  /** Our snapshots carrying every given label (`{}`: all of ours), across every page of the organization's. */
  listSnapshots(labels: Labels, op?: OpOptions): Promise<SnapshotRef[]> {
    return listSnapshots(this.#context, labels, op);
  }

  /** Deletes a snapshot of ours; absent resolves; one not named by this owner is `FOREIGN_SANDBOX`, untouched. */
  deleteSnapshot(snapshotRef: SnapshotRef | string, op?: OpOptions): Promise<void> {
    return deleteSnapshot(this.#context, snapshotRef, op);
  }

  /**
   * Forks a started VM sandbox of ours with Daytona's own fork (a
   * copy-on-write clone): a new sandbox with the source's files, env,
   * resources and network, its labels (or `options.labels`) and a launch key
   * of its own, set by one label update after the fork. Daytona forks VM
   * sandboxes only: a container one, one not started, or one with a
   * `domainAllowList` is refused `UNSUPPORTED` before the fork request. A
   * fork that fails after its request (its label update too) is deleted in
   * the background (`settle()` waits).
   */
  fork(handle: DaytonaHandle, options?: ForkOptions): Promise<DaytonaHandle> {
    return fork(this.#context, handle, options);
  }

  /** Stops the sandbox (its files stay). */
  stop(handle: DaytonaHandle, op?: OpOptions): Promise<void> {
    return stop(this.#context, handle, op);
  }

  /**
   * Starts the sandbox and proves it runs commands (a readiness probe); one
   * that does not rejects `PROVIDER_UNAVAILABLE` (see {@link recreate}). Never changes the sandbox's id.
   */
  start(handle: DaytonaHandle, op?: OpOptions): Promise<void> {
    return start(this.#context, handle, op);
  }

  /**
   * Daytona only: starts the sandbox and proves it like {@link start}; one
   * that fails is replaced by a new sandbox launched the same way (proven
   * first, then the old one deleted), and the new sandbox's handle resolves
   * (a healthy sandbox resolves a handle to itself). `handle` is left as it
   * is; the replacement has an empty filesystem. Persist the handle it resolves.
   */
  recreate(handle: DaytonaHandle, op?: OpOptions): Promise<DaytonaHandle> {
    return recreate(this.#context, handle, op);
  }

  /** Entries of a directory. */
  listDir(handle: DaytonaHandle, path: string, op?: OpOptions): Promise<FileInfo[]> {
    return listDir(this.#context, handle, path, op);
  }

  /** One entry's metadata. */
  stat(handle: DaytonaHandle, path: string, op?: OpOptions): Promise<FileInfo> {
    return stat(this.#context, handle, path, op);
  }

  /** Creates a directory and its parents. */
  mkdir(handle: DaytonaHandle, path: string, op?: OpOptions): Promise<void> {
    return mkdir(this.#context, handle, path, op);
  }

  /** Removes a file or directory tree. */
  remove(handle: DaytonaHandle, path: string, op?: OpOptions): Promise<void> {
    return remove(this.#context, handle, path, op);
  }

  /** The sandbox's preview link for `port`, its token in the headers. */
  portEndpoint(handle: DaytonaHandle, port: number, op?: OpOptions): Promise<PortEndpoint> {
    return portEndpoint(this.#context, handle, port, op);
  }

  /** What Daytona's API reports about the sandbox: state, `sandboxClass`, `warmPoolId`. */
  sandboxDetails(handle: DaytonaHandle, op?: OpOptions): Promise<DaytonaSandboxDetails> {
    return sandboxDetails(this.#context, handle, op);
  }

  /**
   * Waits for background work (destroying what aborted or timed-out launches
   * created, deleting sandboxes `recreate` replaced) and resolves with the
   * failures it met, if any. Call it before exiting a process that may have some.
   */
  settle(): Promise<SandportError[]> {
    return this.#context.background.settle();
  }
}
