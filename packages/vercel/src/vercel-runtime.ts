import {
  assertCapabilitiesConsistent,
  type CommandRef,
  type CommandStatus,
  type DeclaredCapabilities,
  type ExecEvent,
  type ExecRequest,
  type ExecResult,
  type FileInput,
  type Labels,
  type LaunchSpec,
  type OpOptions,
  type PortEndpoint,
  type ReadOptions,
  type SandboxRuntime,
  type SandportError,
  SPECIFICATION_VERSION,
  type StartCommandRequest,
} from "@sandport/core";
import { commandLogs, commandStatus, startCommand } from "./async-commands.js";
import { vercelCapabilities } from "./capabilities.js";
import { VercelContext } from "./context.js";
import { exec, execStream } from "./exec.js";
import { readFile, writeFiles } from "./files.js";
import { PROVIDER, type VercelHandle } from "./handle.js";
import { launch } from "./launch.js";
import { destroy, start, stop } from "./lifecycle.js";
import { findByLabels, getById } from "./lookup.js";
import { resolveOptions, type VercelRuntimeOptions } from "./options.js";
import { portEndpoint } from "./ports.js";

/**
 * The Sandport runtime for Vercel Sandbox, through the `@vercel/sandbox` SDK
 * (optional peer, loaded on first use).
 *
 * Every SDK call carries the token, team id, project id and `fetch`
 * explicitly, so the SDK never falls back to `VERCEL_OIDC_TOKEN`, the CLI's
 * `auth.json` or a device login. A sandbox is addressed by name: every name
 * this runtime creates starts with its prefix (the ownership boundary) and
 * ends with the launch key, and carries a `sandport.owner` tag; others are
 * never listed, reattached, stopped or destroyed. Every call has a deadline.
 *
 * ```ts
 * const runtime = new VercelRuntime({ token, teamId, projectId, owner: "ci" });
 * const sandbox = await runtime.launch({ labels: { job: "42" } });
 * await runtime.exec(sandbox, { argv: ["echo", "hi"] });
 * await runtime.destroy(sandbox);
 * ```
 */
export class VercelRuntime implements SandboxRuntime<VercelHandle> {
  /** The port version this runtime implements. */
  readonly specificationVersion = SPECIFICATION_VERSION;
  /** Always `"vercel"`. */
  readonly provider = PROVIDER;
  /** Absolute workspace directory inside each sandbox (default `/vercel/sandbox/workspace`). */
  readonly workspaceRoot: string;
  /** See {@link vercelCapabilities}. */
  readonly capabilities: DeclaredCapabilities = vercelCapabilities;
  readonly #context: VercelContext;

  /** Validates the options; no I/O happens until the first call. */
  constructor(options: VercelRuntimeOptions) {
    const resolved = resolveOptions(options);
    this.workspaceRoot = resolved.workspaceRoot;
    this.#context = new VercelContext(resolved, options.sdk, options.onBackgroundError);
    assertCapabilitiesConsistent(this);
  }

  /** Creates a named, tagged sandbox with an explicit lifetime, then its workspace directory. */
  launch(spec?: LaunchSpec, op?: OpOptions): Promise<VercelHandle> {
    return launch(this.#context, spec, op);
  }

  /** Runs a command to completion (argv, cwd and env in Vercel's own fields); non-zero exits are results. */
  exec(handle: VercelHandle, request: ExecRequest, op?: OpOptions): Promise<ExecResult> {
    return exec(this.#context, handle, request, op);
  }

  /** Runs a command, yielding `started`, stdout/stderr chunks as Vercel streams them, then `exited`. */
  execStream(handle: VercelHandle, request: ExecRequest, op?: OpOptions): AsyncIterable<ExecEvent> {
    return execStream(this.#context, handle, request, op);
  }

  /** Writes all files in one tar.gz upload. */
  writeFiles(handle: VercelHandle, files: readonly FileInput[], op?: OpOptions): Promise<void> {
    return writeFiles(this.#context, handle, files, op);
  }

  /** Reads one file's bytes. */
  readFile(handle: VercelHandle, path: string, op?: ReadOptions): Promise<Uint8Array> {
    return readFile(this.#context, handle, path, op);
  }

  /** Deletes the sandbox and resolves once the list API proves it gone. */
  destroy(handle: VercelHandle, op?: OpOptions): Promise<void> {
    return destroy(this.#context, handle, op);
  }

  /** Starts a detached command; idempotent on `sessionId`. */
  startCommand(handle: VercelHandle, request: StartCommandRequest, op?: OpOptions): Promise<CommandRef> {
    return startCommand(this.#context, handle, request, op);
  }

  /** Where a started command is. */
  commandStatus(handle: VercelHandle, ref: CommandRef, op?: OpOptions): Promise<CommandStatus> {
    return commandStatus(this.#context, handle, ref, op);
  }

  /** A started command's output so far. */
  commandLogs(handle: VercelHandle, ref: CommandRef, op?: OpOptions): Promise<ExecResult> {
    return commandLogs(this.#context, handle, ref, op);
  }

  /** Rebuilds a handle from a name through the list API; `undefined` when absent, `FOREIGN_SANDBOX` when not ours. */
  getById(id: string, op?: OpOptions): Promise<VercelHandle | undefined> {
    return getById(this.#context, id, op);
  }

  /** Every sandbox of ours carrying all the labels (`{}`: all of ours), across every page of the list API. */
  findByLabels(labels: Labels, op?: OpOptions): Promise<VercelHandle[]> {
    return findByLabels(this.#context, labels, op);
  }

  /** Stops the sandbox's session; its files stay. */
  stop(handle: VercelHandle, op?: OpOptions): Promise<void> {
    return stop(this.#context, handle, op);
  }

  /** Resumes a stopped sandbox in a new session. */
  start(handle: VercelHandle, op?: OpOptions): Promise<void> {
    return start(this.#context, handle, op);
  }

  /** The public `https://<subdomain>.vercel.run` address of a port declared at launch. */
  portEndpoint(handle: VercelHandle, port: number, op?: OpOptions): Promise<PortEndpoint> {
    return portEndpoint(this.#context, handle, port, op);
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

/**
 * @deprecated Renamed {@link VercelRuntime}, as every provider's `<P>Runtime`
 * (`E2BRuntime`, `DaytonaRuntime`, ...); this alias will be removed.
 */
export const VercelSandboxRuntime = VercelRuntime;
/** @deprecated Renamed {@link VercelRuntime}; this alias will be removed. */
export type VercelSandboxRuntime = VercelRuntime;
