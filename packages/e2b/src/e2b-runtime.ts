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
  type SandboxRuntime,
  type SandportError,
  SPECIFICATION_VERSION,
  type StartCommandRequest,
} from "@sandport/core";
import { asyncCommandLogs, asyncCommandStatus, startAsyncCommand } from "./async-commands.js";
import { e2bCapabilities } from "./capabilities.js";
import { execCommand, streamCommand } from "./exec.js";
import {
  listSandboxDirectory,
  makeSandboxDirectory,
  readSandboxFile,
  removeSandboxPath,
  statSandboxPath,
  writeSandboxFiles,
} from "./files.js";
import { RuntimeContext } from "./internal/context.js";
import { launchSandbox } from "./launch.js";
import { destroySandbox, startSandbox, stopSandbox } from "./lifecycle.js";
import { findSandboxesByLabels, getSandboxById } from "./lookup.js";
import { type E2BRuntimeOptions, PROVIDER, resolveOptions } from "./options.js";
import type { E2BHandle } from "./ownership.js";

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
  readonly #context: RuntimeContext;

  /** Validates the options; no I/O happens until the first call. */
  constructor(options: E2BRuntimeOptions) {
    const resolved = resolveOptions(options);
    this.workspaceRoot = resolved.workspaceRoot;
    this.#context = new RuntimeContext(resolved, options.sdk, options.onBackgroundError);
    assertCapabilitiesConsistent(this);
  }

  /** Creates a sandbox with ownership metadata, launch key, labels and an explicit lifetime; creates the workspace. */
  launch(spec: LaunchSpec = {}, op?: OpOptions): Promise<E2BHandle> {
    return launchSandbox(this.#context, spec, op);
  }

  /** Runs a command to completion with a timeout always sent; non-zero exits are results. */
  exec(handle: E2BHandle, request: ExecRequest, op?: OpOptions): Promise<ExecResult> {
    return execCommand(this.#context, handle, request, op);
  }

  /** Runs a command, yielding `started`, stdout/stderr chunks as they arrive, then `exited`. */
  execStream(handle: E2BHandle, request: ExecRequest, op?: OpOptions): AsyncIterable<ExecEvent> {
    return streamCommand(this.#context, handle, request, op);
  }

  /** Writes all files in one batched upload. */
  writeFiles(handle: E2BHandle, files: readonly FileInput[], op?: OpOptions): Promise<void> {
    return writeSandboxFiles(this.#context, handle, files, op);
  }

  /** Reads one file's bytes. */
  readFile(handle: E2BHandle, path: string, op?: OpOptions): Promise<Uint8Array> {
    return readSandboxFile(this.#context, handle, path, op);
  }

  /** Destroys the sandbox and resolves once it is verified gone. */
  destroy(handle: E2BHandle, op?: OpOptions): Promise<void> {
    return destroySandbox(this.#context, handle, op);
  }

  /** Starts a command in the background; idempotent on `sessionId`. */
  startCommand(handle: E2BHandle, request: StartCommandRequest, op?: OpOptions): Promise<CommandRef> {
    return startAsyncCommand(this.#context, handle, request, op);
  }

  /** Where a started command is. */
  commandStatus(handle: E2BHandle, ref: CommandRef, op?: OpOptions): Promise<CommandStatus> {
    return asyncCommandStatus(this.#context, handle, ref, op);
  }

  /** A started command's output so far. */
  commandLogs(handle: E2BHandle, ref: CommandRef, op?: OpOptions): Promise<ExecResult> {
    return asyncCommandLogs(this.#context, handle, ref, op);
  }

  /** Rebuilds a handle from an id; `undefined` when absent, `FOREIGN_SANDBOX` when not ours. */
  getById(id: string, op?: OpOptions): Promise<E2BHandle | undefined> {
    return getSandboxById(this.#context, id, op);
  }

  /** Every sandbox of ours carrying all the labels, across every page of the list API. */
  findByLabels(labels: Labels, op?: OpOptions): Promise<E2BHandle[]> {
    return findSandboxesByLabels(this.#context, labels, op);
  }

  /** Pauses the sandbox. */
  stop(handle: E2BHandle, op?: OpOptions): Promise<void> {
    return stopSandbox(this.#context, handle, op);
  }

  /** Resumes a paused sandbox. */
  start(handle: E2BHandle, op?: OpOptions): Promise<void> {
    return startSandbox(this.#context, handle, op);
  }

  /** Entries of a directory. */
  listDir(handle: E2BHandle, path: string, op?: OpOptions): Promise<FileInfo[]> {
    return listSandboxDirectory(this.#context, handle, path, op);
  }

  /** One entry's metadata. */
  stat(handle: E2BHandle, path: string, op?: OpOptions): Promise<FileInfo> {
    return statSandboxPath(this.#context, handle, path, op);
  }

  /** Creates a directory and its parents. */
  mkdir(handle: E2BHandle, path: string, op?: OpOptions): Promise<void> {
    return makeSandboxDirectory(this.#context, handle, path, op);
  }

  /** Removes a file or directory tree. */
  remove(handle: E2BHandle, path: string, op?: OpOptions): Promise<void> {
    return removeSandboxPath(this.#context, handle, path, op);
  }

  /**
   * Waits for background cleanup (sandboxes created by launches that were
   * aborted or timed out) and resolves with the failures it met, if any.
   * Call it before exiting a process that may have abandoned launches.
   */
  settle(): Promise<SandportError[]> {
    return this.#context.settle();
  }
}
