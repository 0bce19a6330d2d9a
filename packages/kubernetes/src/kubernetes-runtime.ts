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
  SPECIFICATION_VERSION,
  type StartCommandRequest,
  type Terminal,
  type TerminalRequest,
} from "@sandport/core";
import { commandLogs, commandStatus, startCommand } from "./async-commands.js";
import { kubernetesCapabilities } from "./capabilities.js";
import { KubernetesContext } from "./context.js";
import { exec, execStream } from "./exec.js";
import { listDir, mkdir, remove, stat } from "./file-ops.js";
import { readFile, writeFiles } from "./files.js";
import { type KubernetesHandle, PROVIDER } from "./handle.js";
import { launch } from "./launch.js";
import { destroy, start, stop } from "./lifecycle.js";
import { findByLabels, getById } from "./lookup.js";
import { type KubernetesRuntimeOptions, resolveOptions } from "./options.js";
import { portEndpoint } from "./ports.js";
import { spawn } from "./spawn.js";
import { openTerminal } from "./terminal.js";

/**
 * The Sandport runtime for a Kubernetes cluster running
 * kubernetes-sigs/agent-sandbox, over plain HTTP (no client library).
 *
 * A sandbox is a `SandboxClaim` against a `SandboxWarmPool`: launch
 * creates the claim (labels and ownership in its metadata), waits for
 * `Ready` and reads the sandbox and pod it adopted. Commands and files go
 * to the pod through sandboxd behind the sandbox-router (`dataPlane:
 * "sandboxd"`, the default) or through the pod `exec` WebSocket on the API
 * server (`"pod-exec"`, for templates without sandboxd). Destroy deletes
 * the claim in the foreground and waits until it, its sandbox and its pod
 * are gone. The cluster comes only from the options: nothing is read from
 * `~/.kube/config`, `KUBECONFIG` or a service-account file.
 *
 * ```ts
 * const runtime = new KubernetesRuntime({
 *   cluster: { server, token, caData },
 *   warmPool: "python-pool",
 *   routerUrl: "http://sandbox-router.agent-sandbox-system.svc:8080",
 * });
 * const sandbox = await runtime.launch({ labels: { job: "42" } });
 * await runtime.exec(sandbox, { argv: ["python3", "-c", "print(1)"] });
 * await runtime.destroy(sandbox);
 * ```
 */
export class KubernetesRuntime implements SandboxRuntime<KubernetesHandle> {
  /** The port version this runtime implements. */
  readonly specificationVersion = SPECIFICATION_VERSION;
  /** Always `"kubernetes"`. */
  readonly provider = PROVIDER;
  /** Absolute workspace directory inside each pod (default `/workspace`, sandboxd's root). */
  readonly workspaceRoot: string;
  /** See {@link kubernetesCapabilities}. */
  readonly capabilities: DeclaredCapabilities;
  readonly #context: KubernetesContext;

  /** Validates the options; no I/O happens until the first call. */
  constructor(options: KubernetesRuntimeOptions) {
    const resolved = resolveOptions(options);
    this.workspaceRoot = resolved.workspaceRoot;
    this.capabilities = kubernetesCapabilities(resolved.dataPlane);
    this.#context = new KubernetesContext(resolved, options.onBackgroundError);
    assertCapabilitiesConsistent(this);
  }

  /** Claims a sandbox from the warm pool (cold from its template when none is ready, or with env) and waits for Ready. */
  launch(spec?: LaunchSpec, op?: OpOptions): Promise<KubernetesHandle> {
    return launch(this.#context, this.capabilities, spec, op);
  }

  /** Runs a command to completion within its run budget; non-zero exits are results. */
  exec(handle: KubernetesHandle, request: ExecRequest, op?: OpOptions): Promise<ExecResult> {
    return exec(this.#context, handle, request, op);
  }

  /** Runs a command, yielding `started`, its output as it arrives, then `exited`. */
  execStream(handle: KubernetesHandle, request: ExecRequest, op?: OpOptions): AsyncGenerator<ExecEvent> {
    return execStream(this.#context, handle, request, op);
  }

  /** Starts a command whose stdin stays open; resolves once it runs. */
  spawn(handle: KubernetesHandle, request: ExecRequest, op?: OpOptions): Promise<SandboxProcess> {
    return spawn(this.#context, handle, request, op);
  }

  /**
   * Starts a command that outlives the call (a detached supervisor keeps its
   * records in the pod); the session id is the idempotency key, across
   * runtime instances.
   */
  startCommand(handle: KubernetesHandle, request: StartCommandRequest, op?: OpOptions): Promise<CommandRef> {
    return startCommand(this.#context, handle, request, op);
  }

  /** `running`, else how a started command exited (`exitCode: null` when its timeout or output cap stopped it). */
  commandStatus(handle: KubernetesHandle, ref: CommandRef, op?: OpOptions): Promise<CommandStatus> {
    return commandStatus(this.#context, handle, ref, op);
  }

  /** A started command's output so far (whole once it exited), capped at its own `maxOutputBytes`. */
  commandLogs(handle: KubernetesHandle, ref: CommandRef, op?: OpOptions): Promise<ExecResult> {
    return commandLogs(this.#context, handle, ref, op);
  }

  /** Runs a program on a terminal (sandboxd's PTY, or pod exec with `tty`); resolves once it runs. */
  openTerminal(handle: KubernetesHandle, request: TerminalRequest, op?: OpOptions): Promise<Terminal> {
    return openTerminal(this.#context, handle, request, op);
  }

  /** Writes every file as raw bytes, atomically, one request (or command) each. */
  writeFiles(handle: KubernetesHandle, files: readonly FileInput[], op?: OpOptions): Promise<void> {
    return writeFiles(this.#context, handle, files, op);
  }

  /** Reads one file's bytes. */
  readFile(handle: KubernetesHandle, path: string, op?: ReadOptions): Promise<Uint8Array> {
    return readFile(this.#context, handle, path, op);
  }

  /** Deletes the claim in the foreground and resolves once the claim, its sandbox and its pod are gone. */
  destroy(handle: KubernetesHandle, op?: OpOptions): Promise<void> {
    return destroy(this.#context, handle, op);
  }

  /** Rebuilds a handle from a claim name; `undefined` when absent, `FOREIGN_SANDBOX` when not ours. */
  getById(id: string, op?: OpOptions): Promise<KubernetesHandle | undefined> {
    return getById(this.#context, id, op);
  }

  /** Every claim of ours in the namespace carrying all the labels (`{}`: all of ours), by label selector. */
  findByLabels(labels: Labels, op?: OpOptions): Promise<KubernetesHandle[]> {
    return findByLabels(this.#context, labels, op);
  }

  /** Suspends the sandbox (`operatingMode: Suspended`: the pod goes, the claim and volumes stay). */
  stop(handle: KubernetesHandle, op?: OpOptions): Promise<void> {
    return stop(this.#context, handle, op);
  }

  /** Resumes a suspended sandbox (`operatingMode: Running`) and waits for Ready. */
  start(handle: KubernetesHandle, op?: OpOptions): Promise<void> {
    return start(this.#context, handle, op);
  }

  /** Entries of a directory. */
  listDir(handle: KubernetesHandle, path: string, op?: OpOptions): Promise<FileInfo[]> {
    return listDir(this.#context, handle, path, op);
  }

  /** One entry's metadata; a symlink as itself. */
  stat(handle: KubernetesHandle, path: string, op?: OpOptions): Promise<FileInfo> {
    return stat(this.#context, handle, path, op);
  }

  /** Creates a directory and its parents. */
  mkdir(handle: KubernetesHandle, path: string, op?: OpOptions): Promise<void> {
    return mkdir(this.#context, handle, path, op);
  }

  /** Removes a file or a directory tree. */
  remove(handle: KubernetesHandle, path: string, op?: OpOptions): Promise<void> {
    return remove(this.#context, handle, path, op);
  }

  /** The router's URL and the `X-Sandbox-*` headers that reach `port` of the pod. */
  portEndpoint(handle: KubernetesHandle, port: number, op?: OpOptions): Promise<PortEndpoint> {
    return portEndpoint(this.#context, handle, port, op);
  }

  /**
   * Waits for background work (deleting claims made by launches that were
   * aborted or timed out) and resolves with the failures it met, if any.
   */
  settle(): Promise<SandportError[]> {
    return this.#context.background.settle();
  }
}
