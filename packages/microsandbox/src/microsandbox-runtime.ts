import {
  assertCapabilitiesConsistent,
  type DeclaredCapabilities,
  type ExecEvent,
  type ExecRequest,
  type ExecResult,
  type FileInfo,
  type FileInput,
  type Labels,
  type LaunchSpec,
  type OpOptions,
  type ReadOptions,
  type SandboxProcess,
  type SandboxRuntime,
  type SandportError,
  SPECIFICATION_VERSION,
} from "@sandport/core";
import { capabilitiesFor } from "./capabilities.js";
import { MicrosandboxContext } from "./context.js";
import { exec, execStream } from "./exec.js";
import { listDir, mkdir, remove, stat } from "./file-ops.js";
import { readFile, writeFiles } from "./files.js";
import { type MicrosandboxHandle, PROVIDER } from "./handle.js";
import { launch } from "./launch.js";
import { destroy, start, stop } from "./lifecycle.js";
import { findByLabels, getById } from "./lookup.js";
import { type MicrosandboxRuntimeOptions, resolveOptions } from "./options.js";
import { spawn } from "./spawn.js";

/**
 * The Sandport runtime for microsandbox, through the `microsandbox` SDK
 * (optional peer, Node >= 22, loaded on first use), on its cloud backend or
 * on local microVMs.
 *
 * The SDK's backend is process-wide; this runtime binds every call to its
 * own (`options.backend`) and restores the previous default before any other
 * code runs, so runtimes on different backends share a process safely and
 * no `MSB_*` variable or profile ever chooses where a call goes. Sandboxes
 * carry an ownership marker (`sandport.owner`) and a launch key as labels;
 * others are never listed, reattached or destroyed. Every command has a run
 * budget, every call a deadline.
 *
 * `capabilities` depend on the backend and options (see `capabilitiesFor`).
 *
 * ```ts
 * const runtime = new MicrosandboxRuntime({ backend: { kind: "cloud", apiKey }, owner: "ci" });
 * const sandbox = await runtime.launch({ labels: { job: "42" } });
 * await runtime.exec(sandbox, { argv: ["echo", "hi"] });
 * await runtime.destroy(sandbox);
 * ```
 */
export class MicrosandboxRuntime implements SandboxRuntime<MicrosandboxHandle> {
  /** The port version this runtime implements. */
  readonly specificationVersion = SPECIFICATION_VERSION;
  /** Always `"microsandbox"`. */
  readonly provider = PROVIDER;
  /** Absolute workspace directory inside each sandbox (default `/workspace`). */
  readonly workspaceRoot: string;
  /** What this runtime declares for its backend; see `capabilitiesFor`. */
  readonly capabilities: DeclaredCapabilities;
  readonly #context: MicrosandboxContext;

  /** Validates the options; no I/O happens until the first call. */
  constructor(options: MicrosandboxRuntimeOptions) {
    const resolved = resolveOptions(options);
    this.workspaceRoot = resolved.workspaceRoot;
    this.capabilities = capabilitiesFor({
      backend: resolved.backend.kind,
      idleTimeout: resolved.idleTimeoutMs !== undefined,
    });
    this.#context = new MicrosandboxContext(resolved, options.sdk, options.onBackgroundError);
    assertCapabilitiesConsistent(this);
  }

  /** Creates a sandbox with ownership labels, launch key, labels and an explicit lifetime; creates the workspace. */
  launch(spec?: LaunchSpec, op?: OpOptions): Promise<MicrosandboxHandle> {
    return launch(this.#context, spec, op);
  }

  /** Runs a command to completion under its run budget; non-zero exits are results. */
  exec(handle: MicrosandboxHandle, request: ExecRequest, op?: OpOptions): Promise<ExecResult> {
    return exec(this.#context, handle, request, op);
  }

  /** Runs a command, yielding `started`, stdout/stderr chunks (exact bytes) as they arrive, then `exited`. */
  execStream(handle: MicrosandboxHandle, request: ExecRequest, op?: OpOptions): AsyncIterable<ExecEvent> {
    return execStream(this.#context, handle, request, op);
  }

  /** Starts a command whose stdin stays open; resolves once it runs. */
  spawn(handle: MicrosandboxHandle, request: ExecRequest, op?: OpOptions): Promise<SandboxProcess> {
    return spawn(this.#context, handle, request, op);
  }

  /** Writes files through the SDK's filesystem calls, parents created. */
  writeFiles(handle: MicrosandboxHandle, files: readonly FileInput[], op?: OpOptions): Promise<void> {
    return writeFiles(this.#context, handle, files, op);
  }

  /** Reads one file's bytes. */
  readFile(handle: MicrosandboxHandle, path: string, op?: ReadOptions): Promise<Uint8Array> {
    return readFile(this.#context, handle, path, op);
  }

  /** Deletes the sandbox by name, then resolves once a lookup says it is gone (`DESTROY_UNVERIFIED` otherwise). */
  destroy(handle: MicrosandboxHandle, op?: OpOptions): Promise<void> {
    return destroy(this.#context, handle, op);
  }

  /** A handle from one lookup by name (`id` is the name); `undefined` when absent, `FOREIGN_SANDBOX` when not ours. */
  getById(id: string, op?: OpOptions): Promise<MicrosandboxHandle | undefined> {
    return getById(this.#context, id, op);
  }

  /** Our sandboxes with all the labels (`{}`: all of ours): microsandbox filters, every page is read, and checked again. */
  findByLabels(labels: Labels, op?: OpOptions): Promise<MicrosandboxHandle[]> {
    return findByLabels(this.#context, labels, op);
  }

  /** Shuts the sandbox's VM down; its files stay, its commands end. */
  stop(handle: MicrosandboxHandle, op?: OpOptions): Promise<void> {
    return stop(this.#context, handle, op);
  }

  /** Boots a stopped sandbox again and attaches to it. */
  start(handle: MicrosandboxHandle, op?: OpOptions): Promise<void> {
    return start(this.#context, handle, op);
  }

  /** Entries of a directory from agentd's listing, sorted by name. */
  listDir(handle: MicrosandboxHandle, path: string, op?: OpOptions): Promise<FileInfo[]> {
    return listDir(this.#context, handle, path, op);
  }

  /** One entry, read from its directory's listing (so a symlink is reported as itself). */
  stat(handle: MicrosandboxHandle, path: string, op?: OpOptions): Promise<FileInfo> {
    return stat(this.#context, handle, path, op);
  }

  /** Creates a directory and its parents (agentd's `create_dir_all`). */
  mkdir(handle: MicrosandboxHandle, path: string, op?: OpOptions): Promise<void> {
    return mkdir(this.#context, handle, path, op);
  }

  /** Removes a file, a symlink or a directory tree; absent is fine. */
  remove(handle: MicrosandboxHandle, path: string, op?: OpOptions): Promise<void> {
    return remove(this.#context, handle, path, op);
  }

  /**
   * Resolves once the sandboxes of abandoned launches (a create that outlived
   * its caller's abort or deadline) are destroyed, with what failed on the way.
   * A process that may have abandoned a launch calls it before it exits.
   */
  settle(): Promise<SandportError[]> {
    return this.#context.background.settle();
  }
}
