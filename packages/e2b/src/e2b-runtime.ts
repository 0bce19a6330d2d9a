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
import { e2bCapabilities } from "./capabilities.js";
import { E2BContext } from "./context.js";
import { exec, execStream } from "./exec.js";
import { listDir, mkdir, remove, stat } from "./file-ops.js";
import { readFile, writeFiles } from "./files.js";
import { type E2BHandle, PROVIDER } from "./handle.js";
import { launch } from "./launch.js";
import { destroy, start, stop } from "./lifecycle.js";
import { findByLabels, getById } from "./lookup.js";
import { type E2BRuntimeOptions, resolveOptions } from "./options.js";
import { portEndpoint } from "./ports.js";
import { deleteSnapshot, listSnapshots, snapshot } from "./snapshots.js";
import { spawn } from "./spawn.js";
import { openTerminal } from "./terminal.js";

/**
 * The Sandport runtime for E2B sandboxes, through the `e2b` SDK (optional
 * peer, loaded on first use).
 *
 * Every SDK call carries the API key, domain, API URL, sandbox URL and
 * `debug: false` explicitly, so nothing comes from `E2B_*` environment
 * variables. Sandboxes carry an ownership marker (`sandport.owner`) and a
 * launch key as E2B metadata; others are never listed, reattached or destroyed.
 * Every command is sent with a timeout; every call has a deadline.
 *
 * ```ts
 * const runtime = new E2BRuntime({ apiKey, owner: "ci" });
 * const sandbox = await runtime.launch({ labels: { job: "42" } });
 * await runtime.exec(sandbox, { argv: ["echo", "hi"] });
 * await runtime.destroy(sandbox);
 * ```
 */
export class E2BRuntime implements SandboxRuntime<E2BHandle> {
  /** The port version this runtime implements. */
  readonly specificationVersion = SPECIFICATION_VERSION;
  /** Always `"e2b"`. */
  readonly provider = PROVIDER;
  /** Absolute workspace directory inside each sandbox (default `/home/user/workspace`). */
  readonly workspaceRoot: string;
  /** See {@link e2bCapabilities}. */
  readonly capabilities: DeclaredCapabilities = e2bCapabilities;
  readonly #context: E2BContext;

  /** Validates the options; no I/O happens until the first call. */
  constructor(options: E2BRuntimeOptions) {
    const resolved = resolveOptions(options);
    this.workspaceRoot = resolved.workspaceRoot;
    this.#context = new E2BContext(resolved, options.sdk, options.onBackgroundError);
    assertCapabilitiesConsistent(this);
  }

  /** Creates a sandbox with ownership metadata, launch key, labels and an explicit lifetime; creates the workspace. */
  launch(spec?: LaunchSpec, op?: OpOptions): Promise<E2BHandle> {
    return launch(this.#context, spec, op);
  }

  /** Runs a command to completion with a timeout always sent; non-zero exits are results. */
  exec(handle: E2BHandle, request: ExecRequest, op?: OpOptions): Promise<ExecResult> {
    return exec(this.#context, handle, request, op);
  }

  /** Runs a command, yielding `started`, stdout/stderr chunks as they arrive, then `exited`. */
  execStream(handle: E2BHandle, request: ExecRequest, op?: OpOptions): AsyncIterable<ExecEvent> {
    return execStream(this.#context, handle, request, op);
  }

  /** Starts a command whose stdin stays open; resolves once it runs. See `SandboxProcess`. */
  spawn(handle: E2BHandle, request: ExecRequest, op?: OpOptions): Promise<SandboxProcess> {
    return spawn(this.#context, handle, request, op);
  }

  /**
   * Starts a program on a terminal of the sandbox (envd's PTY, through the
   * SDK's `pty`) and resolves once it runs. See `openTerminal` in `terminal.ts`:
   * `kill` sends only SIGKILL; an exit by a signal reports no code.
   */
  openTerminal(handle: E2BHandle, request: TerminalRequest, op?: OpOptions): Promise<Terminal> {
    return openTerminal(this.#context, handle, request, op);
  }

  /** Where to reach a port of the sandbox: no declaration needed; a private sandbox's endpoint carries its token. */
  portEndpoint(handle: E2BHandle, port: number, op?: OpOptions): Promise<PortEndpoint> {
    return portEndpoint(this.#context, handle, port, op);
  }

  /** Writes all files in one batched upload. */
  writeFiles(handle: E2BHandle, files: readonly FileInput[], op?: OpOptions): Promise<void> {
    return writeFiles(this.#context, handle, files, op);
  }

  /** Reads one file's bytes. */
  readFile(handle: E2BHandle, path: string, op?: ReadOptions): Promise<Uint8Array> {
    return readFile(this.#context, handle, path, op);
  }

  /** Destroys the sandbox and resolves once it is verified gone. */
  destroy(handle: E2BHandle, op?: OpOptions): Promise<void> {
    return destroy(this.#context, handle, op);
  }

  /** Starts a command in the background; idempotent on `sessionId`. */
  startCommand(handle: E2BHandle, request: StartCommandRequest, op?: OpOptions): Promise<CommandRef> {
    return startCommand(this.#context, handle, request, op);
  }

  /** Where a started command is. */
  commandStatus(handle: E2BHandle, ref: CommandRef, op?: OpOptions): Promise<CommandStatus> {
    return commandStatus(this.#context, handle, ref, op);
  }

  /** A started command's output so far. */
  commandLogs(handle: E2BHandle, ref: CommandRef, op?: OpOptions): Promise<ExecResult> {
    return commandLogs(this.#context, handle, ref, op);
  }

  /** Rebuilds a handle from an id; `undefined` when absent, `FOREIGN_SANDBOX` when not ours. */
  getById(id: string, op?: OpOptions): Promise<E2BHandle | undefined> {
    return getById(this.#context, id, op);
  }

  /** Every sandbox of ours carrying all the labels (`{}`: all of ours), across every page of the list API. */
  findByLabels(labels: Labels, op?: OpOptions): Promise<E2BHandle[]> {
    return findByLabels(this.#context, labels, op);
  }

  /** Pauses the sandbox. */
  stop(handle: E2BHandle, op?: OpOptions): Promise<void> {
    return stop(this.#context, handle, op);
  }

  /** Resumes a paused sandbox. */
  start(handle: E2BHandle, op?: OpOptions): Promise<void> {
    return start(this.#context, handle, op);
  }

  /**
   * Takes an E2B snapshot (`contents: "filesystem+memory"`): E2B pauses the
   * sandbox briefly, saves its disk and memory, and resumes it, so it keeps
   * running; `launch({ from })` starts new sandboxes from it. The snapshot's
   * name carries its owner, source and labels (E2B keeps no metadata on
   * snapshots), so labels too long for a name are refused (`UNSUPPORTED`).
   */
  snapshot(handle: E2BHandle, options?: SnapshotOptions): Promise<SnapshotRef> {
    return snapshot(this.#context, handle, options);
  }

  /** Our snapshots carrying every given label (`{}`: all of ours), across every page of `GET /snapshots`. */
  listSnapshots(labels: Labels, op?: OpOptions): Promise<SnapshotRef[]> {
    return listSnapshots(this.#context, labels, op);
  }

  /** Deletes a snapshot of ours; absent resolves; one not named by this owner is `FOREIGN_SANDBOX`, untouched. */
  deleteSnapshot(snapshotRef: SnapshotRef | string, op?: OpOptions): Promise<void> {
    return deleteSnapshot(this.#context, snapshotRef, op);
  }

  /** Entries of a directory. */
  listDir(handle: E2BHandle, path: string, op?: OpOptions): Promise<FileInfo[]> {
    return listDir(this.#context, handle, path, op);
  }

  /** One entry's metadata. */
  stat(handle: E2BHandle, path: string, op?: OpOptions): Promise<FileInfo> {
    return stat(this.#context, handle, path, op);
  }

  /** Creates a directory and its parents. */
  mkdir(handle: E2BHandle, path: string, op?: OpOptions): Promise<void> {
    return mkdir(this.#context, handle, path, op);
  }

  /** Removes a file or directory tree. */
  remove(handle: E2BHandle, path: string, op?: OpOptions): Promise<void> {
    return remove(this.#context, handle, path, op);
  }

  /**
   * Waits for background cleanup (sandboxes created by launches that were
   * aborted or timed out) and resolves with the failures it met, if any.
   * Call it before exiting a process that may have abandoned launches.
   */
  settle(): Promise<SandportError[]> {
    return this.#context.background.settle();
  }
}
