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
  type PortEndpoint,
  type ReadOptions,
  type SandboxProcess,
  type SandboxRuntime,
  type SandportError,
  SPECIFICATION_VERSION,
} from "@sandport/core";
import { modalCapabilities } from "./capabilities.js";
import { ModalContext } from "./context.js";
import { exec, execStream } from "./exec.js";
import { listDir, mkdir, remove, stat } from "./file-ops.js";
import { readFile, writeFiles } from "./files.js";
import { type ModalHandle, PROVIDER } from "./handle.js";
import { launch } from "./launch.js";
import { destroy } from "./lifecycle.js";
import { findByLabels, getById } from "./lookup.js";
import { type ModalRuntimeOptions, resolveOptions } from "./options.js";
import { portEndpoint } from "./ports.js";
import { spawn } from "./spawn.js";

/**
 * The Sandport runtime for Modal sandboxes, through the Modal Labs SDK
 * (`modal`, optional peer, loaded on first use).
 *
 * The SDK takes its server only from `MODAL_SERVER_URL` or `~/.modal.toml`;
 * this runtime builds its one client with both pinned to its own options
 * (for the duration of the synchronous constructor; see the README), and
 * passes the token pair and the environment explicitly. Sandboxes carry an
 * ownership tag (`sandport.owner`) and a launch key as Modal tags, filtered on
 * the server; others are never listed, reattached or destroyed. Every
 * sandbox gets an explicit lifetime; every call has a deadline, applied to the
 * SDK's control-plane calls by a gRPC middleware.
 *
 * ```ts
 * const runtime = new ModalRuntime({ tokenId, tokenSecret, maxLifetimeMs: 3_600_000, owner: "ci" });
 * const sandbox = await runtime.launch({ labels: { job: "42" } });
 * await runtime.exec(sandbox, { argv: ["echo", "hi"] });
 * await runtime.destroy(sandbox);
 * ```
 */
export class ModalRuntime implements SandboxRuntime<ModalHandle> {
  /** The port version this runtime implements. */
  readonly specificationVersion = SPECIFICATION_VERSION;
  /** Always `"modal"`. */
  readonly provider = PROVIDER;
  /** Absolute workspace directory inside each sandbox, its `workdir` (default `/workspace`). */
  readonly workspaceRoot: string;
  /** See {@link modalCapabilities}. */
  readonly capabilities: DeclaredCapabilities = modalCapabilities;
  readonly #context: ModalContext;

  /** Validates the options; no I/O happens, and the SDK is not loaded, until the first call. */
  constructor(options: ModalRuntimeOptions) {
    const resolved = resolveOptions(options);
    this.workspaceRoot = resolved.workspaceRoot;
    this.#context = new ModalContext(resolved, options.sdk, options.onBackgroundError);
    assertCapabilitiesConsistent(this);
  }

  /** Creates a sandbox with the ownership tag, launch key, labels and an explicit lifetime. */
  launch(spec?: LaunchSpec, op?: OpOptions): Promise<ModalHandle> {
    return launch(this.#context, spec, op);
  }

  /** Runs a command to completion with its run budget enforced; non-zero exits are results. */
  exec(handle: ModalHandle, request: ExecRequest, op?: OpOptions): Promise<ExecResult> {
    return exec(this.#context, handle, request, op);
  }

  /** Runs a command, yielding `started`, stdout/stderr chunks (exact bytes) as they arrive, then `exited`. */
  execStream(handle: ModalHandle, request: ExecRequest, op?: OpOptions): AsyncIterable<ExecEvent> {
    return execStream(this.#context, handle, request, op);
  }

  /** Starts a command whose stdin stays open; see `SandboxProcess`. */
  spawn(handle: ModalHandle, request: ExecRequest, op?: OpOptions): Promise<SandboxProcess> {
    return spawn(this.#context, handle, request, op);
  }

  /** Writes files through Modal's file helper, a few at a time. */
  writeFiles(handle: ModalHandle, files: readonly FileInput[], op?: OpOptions): Promise<void> {
    return writeFiles(this.#context, handle, files, op);
  }

  /** Reads one file's bytes. */
  readFile(handle: ModalHandle, path: string, op?: ReadOptions): Promise<Uint8Array> {
    return readFile(this.#context, handle, path, op);
  }

  /** Terminates the sandbox and resolves once it is verified finished. */
  destroy(handle: ModalHandle, op?: OpOptions): Promise<void> {
    return destroy(this.#context, handle, op);
  }

  /** Rebuilds a handle from an id; `undefined` when absent or finished, `FOREIGN_SANDBOX` when not ours. */
  getById(id: string, op?: OpOptions): Promise<ModalHandle | undefined> {
    return getById(this.#context, id, op);
  }

  /** Every running sandbox of ours carrying all the labels (`{}`: all of ours), filtered by tag on the server. */
  findByLabels(labels: Labels, op?: OpOptions): Promise<ModalHandle[]> {
    return findByLabels(this.#context, labels, op);
  }

  /** Where to reach a port declared at launch: its Modal tunnel. */
  portEndpoint(handle: ModalHandle, port: number, op?: OpOptions): Promise<PortEndpoint> {
    return portEndpoint(this.#context, handle, port, op);
  }

  /** Entries of a directory. */
  listDir(handle: ModalHandle, path: string, op?: OpOptions): Promise<FileInfo[]> {
    return listDir(this.#context, handle, path, op);
  }

  /** One entry's metadata. */
  stat(handle: ModalHandle, path: string, op?: OpOptions): Promise<FileInfo> {
    return stat(this.#context, handle, path, op);
  }

  /** Creates a directory and its parents. */
  mkdir(handle: ModalHandle, path: string, op?: OpOptions): Promise<void> {
    return mkdir(this.#context, handle, path, op);
  }

  /** Removes a file or directory tree. */
  remove(handle: ModalHandle, path: string, op?: OpOptions): Promise<void> {
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
