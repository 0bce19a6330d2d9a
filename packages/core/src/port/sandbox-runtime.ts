import type { DeclaredCapabilities } from "../capabilities/declared-capabilities.js";
import { keyList } from "../validation/known-keys.js";
import type { CommandRef, CommandStatus } from "./command.js";
import type { ExecEvent } from "./exec-event.js";
import { EXEC_REQUEST_KEYS, type ExecRequest } from "./exec-request.js";
import type { ExecResult } from "./exec-result.js";
import type { FileInfo } from "./file-info.js";
import type { FileInput } from "./file-input.js";
import type { ForkOptions } from "./fork-options.js";
import type { Labels } from "./labels.js";
import type { LaunchSpec } from "./launch-spec.js";
import type { OpOptions } from "./op-options.js";
import type { PortEndpoint } from "./port-endpoint.js";
import type { ReadOptions } from "./read-options.js";
import type { ReadStreamOptions } from "./read-stream-options.js";
import type { SandboxHandle } from "./sandbox-handle.js";
import type { SandboxProcess } from "./sandbox-process.js";
import type { SnapshotOptions, SnapshotRef } from "./snapshot.js";
import type { Terminal, TerminalRequest } from "./terminal.js";

/** The version of the port this file describes. A later port lives beside it under a new literal. */
export const SPECIFICATION_VERSION = "sandbox-v1";

/** Request for {@link SandboxRuntime.startCommand}: an exec request plus its idempotency key. */
export type StartCommandRequest = ExecRequest & {
  /** Idempotency key. Starting again with the same id returns the existing command instead of a second copy. */
  readonly sessionId: string;
};

/** Every key a {@link StartCommandRequest} may have: an exec request's and `sessionId`. */
export const START_COMMAND_REQUEST_KEYS: readonly string[] = Object.freeze([
  ...EXEC_REQUEST_KEYS,
  ...keyList<Pick<StartCommandRequest, "sessionId">>({ sessionId: true }),
]);

/**
 * The port every sandbox provider implements.
 *
 * Required members are the small set every provider can honour. Optional
 * members exist only where the adapter really implements them: absence is how
 * a runtime says "I cannot", and `resolveCapabilities` turns that into an answer
 * a caller can branch on. No optional member may be a silent no-op.
 *
 * Every method validates its input before any provider call (refusing with
 * `INVALID_REQUEST`), honours `op.signal`, and has a deadline.
 */
export interface SandboxRuntime<H extends SandboxHandle = SandboxHandle> {
  /** Always `"sandbox-v1"` for this version of the port. */
  readonly specificationVersion: typeof SPECIFICATION_VERSION;
  /** Short provider name: `"local"`, `"e2b"`, `"daytona"`, ... */
  readonly provider: string;
  /**
   * Absolute path of the workspace inside the sandbox (e.g. `/workspace`).
   * Relative paths in requests resolve against it; absolute ones must lie under it.
   */
  readonly workspaceRoot: string;
  /** What the adapter declares beyond its methods; see `DeclaredCapabilities`. */
  readonly capabilities: DeclaredCapabilities;

  /** Create a sandbox and resolve once it can run commands. */
  launch(spec: LaunchSpec, op?: OpOptions): Promise<H>;
  /** Run one command to completion. A non-zero exit resolves; only failures to run reject. */
  exec(handle: H, request: ExecRequest, op?: OpOptions): Promise<ExecResult>;
  /** Write files, creating parent directories. Binary-safe. All paths are validated before any is written. */
  writeFiles(handle: H, files: readonly FileInput[], op?: OpOptions): Promise<void>;
  /**
   * Read one file's bytes. A missing file rejects with `NOT_FOUND`; one larger
   * than `op.maxBytes` (default `DEFAULT_READ_MAX_BYTES`, 64 MiB; at most
   * `MAX_READ_BYTES`, 2 GiB - 1) with `OUTPUT_LIMIT`; a malformed `maxBytes`
   * with `INVALID_REQUEST`.
   */
  readFile(handle: H, path: string, op?: ReadOptions): Promise<Uint8Array>;
  /** Destroy the sandbox and resolve once it is verified gone. Destroying an absent sandbox resolves. */
  destroy(handle: H, op?: OpOptions): Promise<void>;

  /** Run one command, yielding `started`, output chunks as they arrive, then `exited`. */
  execStream?(handle: H, request: ExecRequest, op?: OpOptions): AsyncIterable<ExecEvent>;
  /**
   * Read one file's bytes as chunks, each read when the consumer asks for the
   * next one, so the caller holds one chunk at a time whatever the file's size
   * (`readFile` buffers it whole). Joining the chunks gives the file as it was
   * when opened: one that grows meanwhile is read up to its size then.
   *
   * The path is validated and confined as for `readFile` (a final symlink, one
   * leading out, or a file that is not regular is `INVALID_REQUEST`; a missing
   * one `NOT_FOUND`); invalid input and these refusals reject on the first
   * iteration, before any chunk. `op.maxBytes` (no default) refuses a larger
   * file with `OUTPUT_LIMIT` before the first chunk. `op.timeoutMs` (else the
   * runtime's file deadline) bounds the whole stream (`DEADLINE_EXCEEDED`);
   * aborting `op.signal` ends it (`ABORTED`); destroying the sandbox ends it
   * (`NOT_FOUND`). Each of these, and leaving the loop early, closes the file
   * at once, even while the consumer is not iterating.
   */
  readFileStream?(handle: H, path: string, op?: ReadStreamOptions): AsyncIterable<Uint8Array>;
  /** Start a command without waiting for it. Idempotent on `sessionId`. */
  startCommand?(handle: H, request: StartCommandRequest, op?: OpOptions): Promise<CommandRef>;
  /** Poll a started command. */
  commandStatus?(handle: H, ref: CommandRef, op?: OpOptions): Promise<CommandStatus>;
  /** Output of a started command so far (complete once it has exited). */
  commandLogs?(handle: H, ref: CommandRef, op?: OpOptions): Promise<ExecResult>;
  /** Rebuild a handle from an id. Resolves `undefined` when absent; rejects `FOREIGN_SANDBOX` when not ours. */
  getById?(id: string, op?: OpOptions): Promise<H | undefined>;
  /** Every sandbox of ours carrying all the given labels. Never lists foreign sandboxes. */
  findByLabels?(labels: Labels, op?: OpOptions): Promise<H[]>;
  /** Create a sandbox and resolve as soon as the provider accepted it, before it is ready. */
  launchDetached?(spec: LaunchSpec, op?: OpOptions): Promise<H>;
  /** Stop (pause) the sandbox, keeping it for `start`. */
  stop?(handle: H, op?: OpOptions): Promise<void>;
  /** Resume a stopped sandbox. */
  start?(handle: H, op?: OpOptions): Promise<void>;
  /** Entries of a directory (not recursive). */
  listDir?(handle: H, path: string, op?: OpOptions): Promise<FileInfo[]>;
  /** One entry's metadata. A missing path rejects with `NOT_FOUND`. */
  stat?(handle: H, path: string, op?: OpOptions): Promise<FileInfo>;
  /** Create a directory and its parents. Succeeds if it already exists. */
  mkdir?(handle: H, path: string, op?: OpOptions): Promise<void>;
  /** Remove a file or a directory tree. Succeeds if it is already absent. */
  remove?(handle: H, path: string, op?: OpOptions): Promise<void>;
  /**
   * Start a command whose stdin stays open, and resolve once it runs: see
   * `SandboxProcess`. The request's `timeoutMs` (else the runtime's run
   * budget) bounds the run; `op.timeoutMs` bounds only the start; aborting
   * `op.signal`, before or after the start, kills the command.
   */
  spawn?(handle: H, request: ExecRequest, op?: OpOptions): Promise<SandboxProcess>;
  /**
   * Where to reach `port` of the sandbox from outside it (a server a command
   * started listens there). `INVALID_REQUEST` for a port the provider needs
   * declared at launch (`LaunchSpec.ports`) that was not.
   */
  portEndpoint?(handle: H, port: number, op?: OpOptions): Promise<PortEndpoint>;
  /**
   * Start a program on a pseudo-terminal inside the sandbox, and resolve once
   * it runs: see `Terminal`. The request is validated like an exec request
   * (plus `cols` and `rows`), refusing with `INVALID_REQUEST` before any
   * provider call. Its `timeoutMs` (else the runtime's run budget) bounds the
   * program's life: past it the program is killed and the exit says
   * `timedOut`. `op.timeoutMs` bounds only the start; aborting `op.signal`,
   * before or after the start, kills it; so does `destroy`.
   */
  openTerminal?(handle: H, request: TerminalRequest, op?: OpOptions): Promise<Terminal>;
  /**
   * Save the sandbox's state as a snapshot (see `SnapshotRef`), which
   * `launch({ from })` starts new sandboxes from; the sandbox keeps running.
   * A runtime with this member has `listSnapshots` and `deleteSnapshot` too
   * and accepts `LaunchSpec.from`. What the snapshot holds (files, or memory
   * too) is its `contents`; the runtime's documentation says what a command
   * running meanwhile can leave in it.
   */
  snapshot?(handle: H, options?: SnapshotOptions): Promise<SnapshotRef>;
  /** Every snapshot of ours carrying all the given labels (`{}`: all of ours). Never lists foreign snapshots. */
  listSnapshots?(labels: Labels, op?: OpOptions): Promise<SnapshotRef[]>;
  /**
   * Delete a snapshot of ours, and resolve once it is gone; sandboxes started
   * from it are untouched. An absent snapshot resolves; a foreign one rejects
   * with `FOREIGN_SANDBOX`, untouched.
   */
  deleteSnapshot?(snapshot: SnapshotRef | string, op?: OpOptions): Promise<void>;
  /**
   * Create a new sandbox that is a copy of a running one, and resolve once it
   * can run commands; the source keeps running. The fork has a new id, the
   * source's owner, launch env, network and resources, the source's labels
   * (or `options.labels` in their place), and is listed, reattached and
   * destroyed like any sandbox of ours; it never carries the source's launch
   * key (a launch key names one sandbox). Options are validated first
   * (`INVALID_REQUEST`). Later writes to
   * either are not seen by the other; destroying one leaves the other. What
   * is copied (files, or memory too) the runtime's documentation says. A
   * source that is absent rejects with `NOT_FOUND`, a foreign one with
   * `FOREIGN_SANDBOX`, before anything is created.
   */
  fork?(handle: H, options?: ForkOptions): Promise<H>;
}
