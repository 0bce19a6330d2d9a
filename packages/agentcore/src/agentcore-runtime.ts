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
  type ReadOptions,
  type SandboxRuntime,
  type SandportError,
  SPECIFICATION_VERSION,
} from "@sandport/core";
import { agentCoreCapabilities } from "./capabilities.js";
import { AgentCoreContext } from "./context.js";
import { exec } from "./exec.js";
import { listDir, mkdir, remove, stat } from "./file-ops.js";
import { readFile, writeFiles } from "./files.js";
import { type AgentCoreHandle, PROVIDER } from "./handle.js";
import { launch } from "./launch.js";
import { destroy } from "./lifecycle.js";
import { findByLabels, getById } from "./lookup.js";
import { type AgentCoreRuntimeOptions, resolveOptions } from "./options.js";

/**
 * The Sandport runtime for AWS Bedrock AgentCore Code Interpreter sessions,
 * through `@aws-sdk/client-bedrock-agentcore` (an optional peer, loaded on
 * first use).
 *
 * The SDK client is built from the options alone (static credentials,
 * region, endpoint and every setting the SDK would load from `AWS_*`
 * variables, `~/.aws` or instance metadata), so nothing ambient is read. A
 * sandbox is a session on one code interpreter; its name carries the owner,
 * the launch key and the labels as digests, and others are never listed,
 * reattached or stopped. A command is one `InvokeCodeInterpreter`, never
 * repeated; every call has a deadline.
 *
 * ```ts
 * const runtime = new AgentCoreRuntime({ region: "us-east-1", accessKeyId, secretAccessKey, owner: "ci" });
 * const session = await runtime.launch({ labels: { job: "42" } });
 * await runtime.exec(session, { argv: ["echo", "hi"] });
 * await runtime.destroy(session);
 * ```
 */
export class AgentCoreRuntime implements SandboxRuntime<AgentCoreHandle> {
  /** The port version this runtime implements. */
  readonly specificationVersion = SPECIFICATION_VERSION;
  /** Always `"agentcore"`. */
  readonly provider = PROVIDER;
  /** Absolute workspace directory inside each session (default `<workingDirectory>/workspace`). */
  readonly workspaceRoot: string;
  /** See {@link agentCoreCapabilities}. */
  readonly capabilities: DeclaredCapabilities = agentCoreCapabilities;
  readonly #context: AgentCoreContext;

  /** Validates the options; no I/O happens until the first call. */
  constructor(options: AgentCoreRuntimeOptions) {
    const resolved = resolveOptions(options);
    this.workspaceRoot = resolved.workspaceRoot;
    this.#context = new AgentCoreContext(resolved, options.sdk, options.onBackgroundError);
    assertCapabilitiesConsistent(this);
  }

  /** Starts a session carrying the ownership marks, launch key, labels and lifetime; creates the workspace. */
  launch(spec?: LaunchSpec, op?: OpOptions): Promise<AgentCoreHandle> {
    return launch(this.#context, spec, op);
  }

  /** Runs a command to completion (one Invoke, never repeated); non-zero exits are results. */
  exec(handle: AgentCoreHandle, request: ExecRequest, op?: OpOptions): Promise<ExecResult> {
    return exec(this.#context, handle, request, op);
  }

  /** Writes every file as bytes in one `writeFiles` call (within the 100 MB payload limit). */
  writeFiles(handle: AgentCoreHandle, files: readonly FileInput[], op?: OpOptions): Promise<void> {
    return writeFiles(this.#context, handle, files, op);
  }

  /** Reads one file's bytes. */
  readFile(handle: AgentCoreHandle, path: string, op?: ReadOptions): Promise<Uint8Array> {
    return readFile(this.#context, handle, path, op);
  }

  /** Stops the session and resolves once it is verified terminated. */
  destroy(handle: AgentCoreHandle, op?: OpOptions): Promise<void> {
    return destroy(this.#context, handle, op);
  }

  /** Rebuilds a handle from a session id; `undefined` when absent or terminated, `FOREIGN_SANDBOX` when not ours. */
  getById(id: string, op?: OpOptions): Promise<AgentCoreHandle | undefined> {
    return getById(this.#context, id, op);
  }

  /** Every `READY` session of ours carrying all the labels (`{}`: all of ours), across every page of the list. */
  findByLabels(labels: Labels, op?: OpOptions): Promise<AgentCoreHandle[]> {
    return findByLabels(this.#context, labels, op);
  }

  /** Entries of a directory (one command in the session). */
  listDir(handle: AgentCoreHandle, path: string, op?: OpOptions): Promise<FileInfo[]> {
    return listDir(this.#context, handle, path, op);
  }

  /** One entry's metadata; a symlink as itself. */
  stat(handle: AgentCoreHandle, path: string, op?: OpOptions): Promise<FileInfo> {
    return stat(this.#context, handle, path, op);
  }

  /** Creates a directory and its parents. */
  mkdir(handle: AgentCoreHandle, path: string, op?: OpOptions): Promise<void> {
    return mkdir(this.#context, handle, path, op);
  }

  /** Removes a file or directory tree. */
  remove(handle: AgentCoreHandle, path: string, op?: OpOptions): Promise<void> {
    return remove(this.#context, handle, path, op);
  }

  /**
   * Waits for background work (stopping sessions started by launches that
   * were aborted or timed out; killing commands whose caller gave up) and
   * resolves with the failures it met, if any.
   */
  settle(): Promise<SandportError[]> {
    return this.#context.background.settle();
  }
}
