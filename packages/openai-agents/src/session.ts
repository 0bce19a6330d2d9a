import type { ToolOutputImage } from "@openai/agents-core";
import type {
  ExecCommandArgs,
  ExposedPortEndpoint,
  ListDirectoryArgs,
  Manifest,
  MaterializeEntryArgs,
  ReadFileArgs,
  SandboxDirectoryEntry,
  SandboxExecResult,
  SandboxSession,
  SandboxSessionState,
  ViewImageArgs,
  WriteStdinArgs,
} from "@openai/agents-core/sandbox";
import {
  checkBridgeOptions,
  keyList,
  type SandboxHandle,
  type SandboxRuntime,
  SandportError,
  whenFound,
} from "@sandport/core";
import { formatExecResult, SandboxCommands } from "./commands.js";
import { SandportEditor } from "./editor.js";
import { imageMediaType, MAX_IMAGE_BYTES } from "./image.js";
import { type AgentsSdk, loadAgentsSdk } from "./internal/sdk.js";
import { applyPlan, planEntries, planManifest } from "./manifest.js";
import { portEndpointFor } from "./ports.js";
import { refuseRunAs } from "./run-as.js";
import type { SandportSnapshot, SandportSnapshotSpec } from "./snapshots.js";

/** The state of a session over a Sandport sandbox: the framework's fields plus the sandbox's handle. */
export interface SandportSessionState<H extends SandboxHandle = SandboxHandle> extends SandboxSessionState {
  /** Variables every command gets (the manifest's environment, resolved). */
  environment: Record<string, string>;
  /** The sandbox: a plain, serialisable handle (`getById` rebuilds it in another process). */
  sandbox: H;
  /** Where the session's workspace is snapshotted when its state is serialised; `null` or absent: nowhere. */
  snapshotSpec?: SandportSnapshotSpec | null;
  /** The snapshot its state was last serialised with, which `resume` restores once the sandbox is gone. */
  snapshot?: SandportSnapshot | null;
}

/** What {@link SandportSandboxSession} is built from. */
export interface SandportSandboxSessionOptions<H extends SandboxHandle> {
  /** The runtime the sandbox lives in. */
  readonly runtime: SandboxRuntime<H>;
  /** The state: at least the manifest (rooted at the runtime's workspace root) and the handle. */
  readonly state: SandportSessionState<H>;
}

/** Every key of {@link SandportSandboxSessionOptions}; any other is refused, naming the nearest known one. */
export const SANDBOX_SESSION_OPTION_KEYS = keyList<SandportSandboxSessionOptions<SandboxHandle>>({
  runtime: true,
  state: true,
});

/**
 * An OpenAI Agents sandbox session over one Sandport sandbox: what a
 * `SandboxAgent`'s `shell()` and `filesystem()` capabilities drive (commands,
 * `write_stdin`, `apply_patch`, `view_image`), plus manifest materialisation
 * and exposed ports. Everything goes through the port; what the runtime lacks
 * (`spawn`, `stat`, `listDir`, `remove`, `portEndpoint`) is refused with the
 * framework's `SandboxUnsupportedFeatureError` before anything starts, and a
 * PTY or another user (`runAs`) always are.
 */
export class SandportSandboxSession<H extends SandboxHandle = SandboxHandle>
  implements SandboxSession<SandportSessionState<H>>
{
  /** The session state the framework reads and serialises. */
  readonly state: SandportSessionState<H>;
  /** The runtime the sandbox lives in. */
  readonly runtime: SandboxRuntime<H>;
  readonly #commands: SandboxCommands<H>;
  #closing: Promise<void> | undefined;

  /** Refuses (`INVALID_REQUEST`) options with an unknown key, naming the nearest known one. */
  constructor(options: SandportSandboxSessionOptions<H>) {
    checkBridgeOptions(options, SANDBOX_SESSION_OPTION_KEYS, "SandportSandboxSession options");
    this.runtime = options.runtime;
    this.state = options.state;
    this.#commands = new SandboxCommands(this.runtime, this.state.sandbox, () => this.state.environment);
  }

  /** Writes the manifest's entries into the sandbox once, and resolves its environment. */
  async start(): Promise<void> {
    if (this.state.workspaceReady) return;
    const sdk = await loadAgentsSdk();
    await this.#materialize(sdk, this.state.manifest);
    this.state.workspaceReady = true;
  }

  /** Whether `write_stdin` is offered: the runtime can `spawn` (pipes, not a terminal). */
  supportsPty(): boolean {
    return this.#commands.interactive;
  }

  /** Runs a command; see `SandboxCommands.run`. A killed command exits 124 (past its time limit) or 137. */
  async exec(args: ExecCommandArgs): Promise<SandboxExecResult> {
    return (await this.#commands.run(args)).result;
  }

  /** Runs a command and returns the text the `exec_command` tool shows the model. */
  async execCommand(args: ExecCommandArgs): Promise<string> {
    const { result, ending } = await this.#commands.run(args);
    return formatExecResult(result, ending);
  }

  /** Writes to (or polls) a command that outlived its yield time. */
  async writeStdin(args: WriteStdinArgs): Promise<string> {
    return this.#commands.writeStdin(args);
  }

  /** The `apply_patch` editor. `runAs` is refused when an operation runs. */
  createEditor(runAs?: string): SandportEditor<H> {
    return new SandportEditor(this.runtime, this.state.sandbox, runAs);
  }

  /** A file's bytes (the first `maxBytes` when given). A missing file is `SandboxWorkspaceReadNotFoundError`. */
  async readFile(args: ReadFileArgs): Promise<Uint8Array> {
    const sdk = await loadAgentsSdk();
    refuseRunAs(sdk, this.runtime, args.runAs);
    const bytes = await this.#read(sdk, args.path);
    return args.maxBytes !== undefined && bytes.byteLength > args.maxBytes ? bytes.subarray(0, args.maxBytes) : bytes;
  }

  /**
   * An image file for the model (PNG, JPEG, GIF, WebP, BMP, TIFF or SVG, at
   * most 10 MiB). A missing path and (where the runtime has `stat`) a
   * directory are refused in the framework's own sandboxes' words: "Image file
   * not found" (`SandboxWorkspaceReadNotFoundError`), "Image path is not a file".
   */
  async viewImage(args: ViewImageArgs): Promise<ToolOutputImage> {
    const sdk = await loadAgentsSdk();
    refuseRunAs(sdk, this.runtime, args.runAs);
    if (typeof this.runtime.stat === "function" && (await this.#stat(args.path, undefined)) === "directory")
      throw new sdk.SandboxError(`Image path is not a file: ${args.path}`);
    const bytes = await this.#read(sdk, args.path, `Image file not found: ${args.path}`);
    if (bytes.byteLength > MAX_IMAGE_BYTES)
      throw new sdk.SandboxError(`Image file exceeds the 10 MB limit: ${args.path}`);
    const mediaType = imageMediaType(bytes, args.path);
    if (!mediaType) throw new sdk.SandboxError(`Unsupported image format for view_image: ${args.path}`);
    return { type: "image", image: { data: Uint8Array.from(bytes), mediaType } };
  }

  /** A directory's entries (needs the runtime's `listDir`). Symlinks are reported as `other`. */
  async listDir(args: ListDirectoryArgs): Promise<SandboxDirectoryEntry[]> {
    const sdk = await loadAgentsSdk();
    refuseRunAs(sdk, this.runtime, args.runAs);
    const listDir = requireMethod(sdk, this.runtime, "listDir", "list a directory");
    const entries = await listDir.call(this.runtime, this.state.sandbox, args.path);
    return entries.map((entry) => ({
      name: entry.name,
      path: entry.path,
      type: entry.kind === "directory" ? "dir" : entry.kind === "file" ? "file" : "other",
    }));
  }

  /** Whether anything is at `path` (needs the runtime's `stat`). */
  async pathExists(path: string, runAs?: string): Promise<boolean> {
    return (await this.#stat(path, runAs)) !== undefined;
  }

  /** Whether `path` is a directory (needs the runtime's `stat`; a symlink is not followed). */
  async directoryExists(path: string, runAs?: string): Promise<boolean> {
    return (await this.#stat(path, runAs)) === "directory";
  }

  /** Writes one manifest entry (a file or a directory tree) at `path`. */
  async materializeEntry(args: MaterializeEntryArgs): Promise<void> {
    const sdk = await loadAgentsSdk();
    refuseRunAs(sdk, this.runtime, args.runAs);
    const manifest = new sdk.Manifest({ root: this.state.manifest.root, entries: { [args.path]: args.entry } });
    await applyPlan(this.runtime, this.state.sandbox, planEntries(sdk, this.runtime, manifest.iterEntries()));
  }

  /** Writes a manifest's entries and adds its environment to every later command's. */
  async applyManifest(manifest: Manifest, runAs?: string): Promise<void> {
    const sdk = await loadAgentsSdk();
    refuseRunAs(sdk, this.runtime, runAs);
    await this.#materialize(sdk, manifest);
  }

  /** Where a server in the sandbox on `port` is reached, through the runtime's `portEndpoint`. */
  async resolveExposedPort(port: number): Promise<ExposedPortEndpoint> {
    return portEndpointFor(await loadAgentsSdk(), this.runtime, this.state, port);
  }

  /** Destroys the sandbox (after killing the commands still running). */
  async delete(): Promise<void> {
    await this.#commands.killAll();
    await this.runtime.destroy(this.state.sandbox);
  }

  /**
   * Ends the session as the framework's own clients' `close()` does (UnixLocal
   * removes the workspace it made, E2B kills its sandbox): kills the commands
   * still running, then destroys the sandbox. Calls made meanwhile share the
   * one destroy; after a failed destroy, `close()` can be called again.
   */
  close(): Promise<void> {
    this.#closing ??= this.delete().catch((error: unknown) => {
      this.#closing = undefined;
      throw error;
    });
    return this.#closing;
  }

  /**
   * Releases the session and leaves the sandbox running, as E2B's
   * `shutdown()` does: kills the commands still running. `delete()` or
   * `close()` destroys the sandbox; the client's `resume` reattaches to it.
   */
  async shutdown(): Promise<void> {
    await this.#commands.killAll();
  }

  async #materialize(sdk: AgentsSdk, manifest: Manifest): Promise<void> {
    const plan = planManifest(sdk, this.runtime, manifest);
    const environment = await manifest.resolveEnvironment();
    await applyPlan(this.runtime, this.state.sandbox, plan);
    this.state.environment = { ...this.state.environment, ...environment };
  }

  async #read(sdk: AgentsSdk, path: string, notFound = `no file ${path}`): Promise<Uint8Array> {
    try {
      return await this.runtime.readFile(this.state.sandbox, path);
    } catch (error) {
      if (SandportError.hasCode(error, "NOT_FOUND"))
        throw new sdk.SandboxWorkspaceReadNotFoundError(notFound, { path, cause: error });
      throw error;
    }
  }

  async #stat(path: string, runAs: string | undefined): Promise<string | undefined> {
    const sdk = await loadAgentsSdk();
    refuseRunAs(sdk, this.runtime, runAs);
    const stat = requireMethod(sdk, this.runtime, "stat", "inspect a path");
    return (await whenFound(stat.call(this.runtime, this.state.sandbox, path)))?.kind;
  }
}

/** The runtime's optional method, or the framework's unsupported-feature error naming what needed it. */
function requireMethod<H extends SandboxHandle, K extends "listDir" | "stat">(
  sdk: AgentsSdk,
  runtime: SandboxRuntime<H>,
  method: K,
  why: string,
): NonNullable<SandboxRuntime<H>[K]> {
  const found = runtime[method];
  if (typeof found !== "function") {
    throw new sdk.SandboxUnsupportedFeatureError(`${runtime.provider} has no ${method}, so the sandbox cannot ${why}`, {
      provider: runtime.provider,
      feature: method,
    });
  }
  return found as NonNullable<SandboxRuntime<H>[K]>;
}
