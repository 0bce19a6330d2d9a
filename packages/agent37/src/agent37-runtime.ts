import {
  assertCapabilitiesConsistent,
  type DeclaredCapabilities,
  type ExecRequest,
  type ExecResult,
  type FileInfo,
  type FileInput,
  type Labels,
  type LaunchSpec,
  type OpOptions,
  type PortEndpoint,
  type ReadOptions,
  type SandboxRuntime,
  type SandportError,
  SPECIFICATION_VERSION,
} from "@sandport/core";
import { agent37Capabilities } from "./capabilities.js";
import { Agent37Context } from "./context.js";
import { exec } from "./exec.js";
import { listDir, mkdir, remove, stat } from "./file-ops.js";
import { readFile, writeFiles } from "./files.js";
import { type Agent37Handle, PROVIDER } from "./handle.js";
import { launch } from "./launch.js";
import { destroy, start, stop } from "./lifecycle.js";
import { findByLabels, getById } from "./lookup.js";
import { type Agent37RuntimeOptions, resolveOptions } from "./options.js";
import { portEndpoint } from "./ports.js";

/**
 * The Sandport runtime for Agent37 instances, over Agent37's HTTP API and
 * the `fetch` it is given (Agent37 publishes no JavaScript library).
 *
 * The hosting plane (`/v1/instances…`, `Authorization: Bearer <key>`)
 * creates, lists, runs commands in, stops, starts and deletes instances;
 * files go to each instance's own URL, as the instance object reports it,
 * with the same key in a header. Instances carry the owner and the launch
 * key in their `metadata`; others are never listed, reattached or
 * destroyed. Commands run through `sh` with their cwd and env written into
 * the script, within 280 s; output Agent37 cuts at 512 KB is `truncated`.
 *
 * ```ts
 * const runtime = new Agent37Runtime({ apiKey, owner: "ci" });
 * const instance = await runtime.launch({ labels: { job: "42" } });
 * await runtime.exec(instance, { argv: ["echo", "hi"] });
 * await runtime.destroy(instance);
 * ```
 */
export class Agent37Runtime implements SandboxRuntime<Agent37Handle> {
  /** The port version this runtime implements. */
  readonly specificationVersion = SPECIFICATION_VERSION;
  /** Always `"agent37"`. */
  readonly provider = PROVIDER;
  /** Absolute workspace directory inside each instance (default `/home/node/workspace`). */
  readonly workspaceRoot: string;
  /** See {@link agent37Capabilities}. */
  readonly capabilities: DeclaredCapabilities = agent37Capabilities;
  readonly #context: Agent37Context;

  /** Validates the options; no I/O happens until the first call. */
  constructor(options: Agent37RuntimeOptions) {
    const resolved = resolveOptions(options);
    this.workspaceRoot = resolved.workspaceRoot;
    this.#context = new Agent37Context(resolved, options.onBackgroundError);
    assertCapabilitiesConsistent(this);
  }

  /** Creates an instance with ownership marks, launch key, labels and env; creates the workspace. */
  launch(spec?: LaunchSpec, op?: OpOptions): Promise<Agent37Handle> {
    return launch(this.#context, spec, op);
  }

  /** Runs a command to completion within its run budget (at most 280 s); non-zero exits are results. */
  exec(handle: Agent37Handle, request: ExecRequest, op?: OpOptions): Promise<ExecResult> {
    return exec(this.#context, handle, request, op);
  }

  /** Writes every file as raw bytes through the instance URL, one request each. */
  writeFiles(handle: Agent37Handle, files: readonly FileInput[], op?: OpOptions): Promise<void> {
    return writeFiles(this.#context, handle, files, op);
  }

  /** Reads one file's bytes through the instance URL. */
  readFile(handle: Agent37Handle, path: string, op?: ReadOptions): Promise<Uint8Array> {
    return readFile(this.#context, handle, path, op);
  }

  /** Deletes the instance and resolves once it is verified gone. */
  destroy(handle: Agent37Handle, op?: OpOptions): Promise<void> {
    return destroy(this.#context, handle, op);
  }

  /** Rebuilds a handle from an id; `undefined` when absent, `FOREIGN_SANDBOX` when not ours. */
  getById(id: string, op?: OpOptions): Promise<Agent37Handle | undefined> {
    return getById(this.#context, id, op);
  }

  /** Every instance of ours carrying all the labels (`{}`: all of ours), matched over the whole list. */
  findByLabels(labels: Labels, op?: OpOptions): Promise<Agent37Handle[]> {
    return findByLabels(this.#context, labels, op);
  }

  /** Stops the instance (its disk persists) and waits until it reports `stopped`. */
  stop(handle: Agent37Handle, op?: OpOptions): Promise<void> {
    return stop(this.#context, handle, op);
  }

  /** Starts a stopped instance and waits until it reports `running`. */
  start(handle: Agent37Handle, op?: OpOptions): Promise<void> {
    return start(this.#context, handle, op);
  }

  /** Entries of a directory (names, kinds, file sizes). */
  listDir(handle: Agent37Handle, path: string, op?: OpOptions): Promise<FileInfo[]> {
    return listDir(this.#context, handle, path, op);
  }

  /** One entry's kind and size, from its parent's listing. */
  stat(handle: Agent37Handle, path: string, op?: OpOptions): Promise<FileInfo> {
    return stat(this.#context, handle, path, op);
  }

  /** Creates a directory and its parents. */
  mkdir(handle: Agent37Handle, path: string, op?: OpOptions): Promise<void> {
    return mkdir(this.#context, handle, path, op);
  }

  /** Removes a file or a directory tree. */
  remove(handle: Agent37Handle, path: string, op?: OpOptions): Promise<void> {
    return remove(this.#context, handle, path, op);
  }

  /** Where to reach a port declared at launch (no header), or a template port (the key in a header). */
  portEndpoint(handle: Agent37Handle, port: number, op?: OpOptions): Promise<PortEndpoint> {
    return portEndpoint(this.#context, handle, port, op);
  }

  /**
   * Waits for background work (deleting instances made by launches that were
   * aborted or timed out) and resolves with the failures it met, if any.
   * Call it before exiting a process that may have abandoned calls.
   */
  settle(): Promise<SandportError[]> {
    return this.#context.background.settle();
  }
}
