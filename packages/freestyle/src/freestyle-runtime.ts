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
  type SnapshotOptions,
  type SnapshotRef,
  SPECIFICATION_VERSION,
} from "@sandport/core";
import { freestyleCapabilities } from "./capabilities.js";
import { FreestyleContext } from "./context.js";
import { exec } from "./exec.js";
import { listDir, mkdir, remove, stat } from "./file-ops.js";
import { readFile, writeFiles } from "./files.js";
import { type FreestyleHandle, PROVIDER } from "./handle.js";
import { launch } from "./launch.js";
import { destroy, start, stop } from "./lifecycle.js";
import { findByLabels, getById } from "./lookup.js";
import { type FreestyleRuntimeOptions, resolveOptions } from "./options.js";
import { deleteSnapshot, listSnapshots, snapshot } from "./snapshots.js";

/**
 * The Sandport runtime for Freestyle VMs, through the `freestyle` SDK (0.2.x,
 * the `/v5` API; an optional peer, loaded on first use).
 *
 * Every SDK client is built with the API key, base URL and a `fetch` that
 * carries the call's deadline and signal, so nothing comes from
 * `FREESTYLE_API_KEY` and no request outlives its call. VMs carry an owner
 * marker and a launch key as metadata and a slug under the name prefix; others
 * are never listed, reattached or destroyed. Snapshots (memory and disk) are
 * marked by slug and display name the same way. Every command is sent with a
 * timeout; every call has a deadline.
 *
 * ```ts
 * const runtime = new FreestyleRuntime({ apiKey, owner: "ci" });
 * const vm = await runtime.launch({ labels: { job: "42" } });
 * await runtime.exec(vm, { argv: ["echo", "hi"] });
 * await runtime.destroy(vm);
 * ```
 */
export class FreestyleRuntime implements SandboxRuntime<FreestyleHandle> {
  /** The port version this runtime implements. */
  readonly specificationVersion = SPECIFICATION_VERSION;
  /** Always `"freestyle"`. */
  readonly provider = PROVIDER;
  /** Absolute workspace directory inside each VM (default `/root/workspace`). */
  readonly workspaceRoot: string;
  /** See {@link freestyleCapabilities}. */
  readonly capabilities: DeclaredCapabilities = freestyleCapabilities;
  readonly #context: FreestyleContext;

  /** Validates the options; no I/O happens until the first call. */
  constructor(options: FreestyleRuntimeOptions) {
    const resolved = resolveOptions(options);
    this.workspaceRoot = resolved.workspaceRoot;
    this.#context = new FreestyleContext(resolved, options.sdk, options.onBackgroundError);
    assertCapabilitiesConsistent(this);
  }

  /**
   * Creates a VM with ownership marks, launch key, labels, lifetime and firewall (booted from a
   * snapshot of ours with `from`, `NOT_FOUND` before any create otherwise); creates the workspace.
   */
  launch(spec?: LaunchSpec, op?: OpOptions): Promise<FreestyleHandle> {
    return launch(this.#context, spec, op);
  }

  /** Runs a command to completion with a timeout always sent; non-zero exits are results. */
  exec(handle: FreestyleHandle, request: ExecRequest, op?: OpOptions): Promise<ExecResult> {
    return exec(this.#context, handle, request, op);
  }

  /** Writes every file as raw bytes with its mode, one request each. */
  writeFiles(handle: FreestyleHandle, files: readonly FileInput[], op?: OpOptions): Promise<void> {
    return writeFiles(this.#context, handle, files, op);
  }

  /** Reads one file's bytes. */
  readFile(handle: FreestyleHandle, path: string, op?: ReadOptions): Promise<Uint8Array> {
    return readFile(this.#context, handle, path, op);
  }

  /** Destroys the VM and resolves once it is verified gone. */
  destroy(handle: FreestyleHandle, op?: OpOptions): Promise<void> {
    return destroy(this.#context, handle, op);
  }

  /** Rebuilds a handle from an id; `undefined` when absent, `FOREIGN_SANDBOX` when not ours. */
  getById(id: string, op?: OpOptions): Promise<FreestyleHandle | undefined> {
    return getById(this.#context, id, op);
  }

  /** Every VM of ours carrying all the labels (`{}`: all of ours), across every page of the list API. */
  findByLabels(labels: Labels, op?: OpOptions): Promise<FreestyleHandle[]> {
    return findByLabels(this.#context, labels, op);
  }

  /** Pauses the VM. */
  stop(handle: FreestyleHandle, op?: OpOptions): Promise<void> {
    return stop(this.#context, handle, op);
  }

  /** Starts (resumes) a paused VM. */
  start(handle: FreestyleHandle, op?: OpOptions): Promise<void> {
    return start(this.#context, handle, op);
  }

  /** Entries of a directory. */
  listDir(handle: FreestyleHandle, path: string, op?: OpOptions): Promise<FileInfo[]> {
    return listDir(this.#context, handle, path, op);
  }

  /** One entry's metadata. */
  stat(handle: FreestyleHandle, path: string, op?: OpOptions): Promise<FileInfo> {
    return stat(this.#context, handle, path, op);
  }

  /** Creates a directory and its parents. */
  mkdir(handle: FreestyleHandle, path: string, op?: OpOptions): Promise<void> {
    return mkdir(this.#context, handle, path, op);
  }

  /** Removes a file or directory tree. */
  remove(handle: FreestyleHandle, path: string, op?: OpOptions): Promise<void> {
    return remove(this.#context, handle, path, op);
  }

  /**
   * Takes a Freestyle snapshot of the VM: memory and disk (`contents:
   * "filesystem+memory"`), so a VM launched from it (`launch({ from })`)
   * resumes what ran in it; the VM keeps running. Marked as ours (slug and
   * display name), with the labels kept in the display name.
   */
  snapshot(handle: FreestyleHandle, options?: SnapshotOptions): Promise<SnapshotRef> {
    return snapshot(this.#context, handle, options);
  }

  /** Our snapshots carrying every given label (`{}`: all of ours), from Freestyle's list. */
  listSnapshots(labels: Labels, op?: OpOptions): Promise<SnapshotRef[]> {
    return listSnapshots(this.#context, labels, op);
  }

  /** Deletes a snapshot of ours; absent resolves; a foreign one is `FOREIGN_SANDBOX`, untouched. */
  deleteSnapshot(snapshotRef: SnapshotRef | string, op?: OpOptions): Promise<void> {
    return deleteSnapshot(this.#context, snapshotRef, op);
  }

  /**
   * Waits for background work (destroying VMs created by launches that were
   * aborted or timed out; killing commands whose caller gave up) and resolves
   * with the failures it met, if any. Call it before exiting a process that
   * may have abandoned calls.
   */
  settle(): Promise<SandportError[]> {
    return this.#context.background.settle();
  }
}
