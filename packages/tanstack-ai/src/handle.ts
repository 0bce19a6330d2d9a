import { type SandboxHandle, SandportError, validateEnv } from "@sandport/core";
import type {
  SandboxCapabilities,
  SandboxEnv,
  SandboxFs,
  SandboxGit,
  SandboxPorts,
  SandboxHandle as TanStackSandboxHandle,
  SandboxProcess as TanStackSandboxProcess,
  SnapshotRef as TanStackSnapshotRef,
} from "@tanstack/ai-sandbox";
import { tanstackCapabilities } from "./capabilities.js";
import { type HandleContext, requireMethod } from "./context.js";
import { sandportFs } from "./fs.js";
import { sandportProcess } from "./process.js";
import { forkSandbox, takeSnapshot } from "./snapshots.js";

/**
 * TanStack AI's `SandboxHandle` over one Sandport sandbox, as
 * {@link sandportSandboxProvider} creates and resumes them.
 *
 * - `id` is the id `resume` and `destroy` find the sandbox by (see the provider).
 * - `workspaceRoot` is the runtime's workspace root, where TanStack AI's
 *   `/workspace` paths land (`resolveHarnessCwd` reads it).
 * - `fs`, `process`: see `sandportFs` and `sandportProcess`.
 * - `git` is TanStack AI's exec-backed git over `process.exec`, rooted at the
 *   provider's `workingDirectory` (default: the workspace root), except that a git command exiting non-zero rejects (with
 *   its stderr) instead of passing unnoticed.
 * - `ports.connect` is the port's `portEndpoint` (its headers, no token), else
 *   TanStack AI's `UnsupportedCapabilityError`.
 * - `env.set` adds to an overlay this handle puts under every later command's
 *   own env (as TanStack AI's local provider does); it is not in the sandbox,
 *   so a handle from `resume` starts without it. The launch env is there.
 * - `snapshot(label)` takes a port snapshot of the sandbox (labelled
 *   `tanstack-ai/sandbox-id=<id>` and `tanstack-ai/snapshot-label=<label>`);
 *   the provider's `restoreSnapshot` launches a new sandbox from its id.
 *   `fork()` is a new sandbox from the state now under a fresh id (with this
 *   handle's `env.set` overlay): the runtime's own `fork` where it has one,
 *   else a snapshot, a launch from it and the snapshot deleted. `snapshot`
 *   needs the runtime's snapshots, `fork` them or its `fork`
 *   (`capabilities.snapshots`, `fork`); without they are TanStack AI's `UnsupportedCapabilityError`,
 *   nothing taken or launched. A snapshot holds the sandbox's files (the
 *   runtime's snapshot `contents` say whether memory too).
 */
export class SandportSandboxHandle<H extends SandboxHandle = SandboxHandle> implements TanStackSandboxHandle {
  /** The id the provider finds this sandbox by: its `tanstack-ai/sandbox-id` label, or the Sandport id (see the provider). */
  readonly id: string;
  /** The provider's name: `sandport-<runtime provider>`. */
  readonly provider: string;
  /** The runtime's workspace root. */
  readonly workspaceRoot: string;
  /** What the runtime can do, in TanStack AI's terms (see `tanstackCapabilities`). */
  readonly capabilities: SandboxCapabilities;
  /** The sandbox's files. */
  readonly fs: SandboxFs;
  /** Git, through commands in the sandbox. */
  readonly git: SandboxGit;
  /** Commands and background processes. */
  readonly process: TanStackSandboxProcess;
  /** Reaching a port a server in the sandbox listens on. */
  readonly ports: SandboxPorts;
  /** The environment overlay of later commands. */
  readonly env: SandboxEnv;
  /** The Sandport handle of the sandbox. */
  readonly sandbox: H;
  readonly #context: HandleContext<H>;
  #overlay: Readonly<Record<string, string>>;

  /** A handle over `context.sandbox`, found again by `id`; `overlay` is the `env.set` overlay it starts with. */
  constructor(context: HandleContext<H>, id: string, overlay: Readonly<Record<string, string>> = {}) {
    const { runtime, sandbox, sdk } = context;
    this.#context = context;
    this.#overlay = overlay;
    this.id = id;
    this.sandbox = sandbox;
    this.provider = context.providerName;
    this.workspaceRoot = runtime.workspaceRoot;
    this.capabilities = tanstackCapabilities(runtime);
    this.fs = sandportFs(context);
    this.process = sandportProcess(context, () => this.#overlay);
    this.git = sdk.createExecBackedGit(
      { exec: (command, options) => this.#gitExec(command, options), spawn: this.process.spawn },
      context.baseDirectory,
    );
    this.ports = {
      connect: async (port) => {
        const portEndpoint = requireMethod(context, "portEndpoint", "ports");
        const endpoint = await portEndpoint(sandbox, port);
        return endpoint.headers === undefined
          ? { url: endpoint.url }
          : { url: endpoint.url, headers: { ...endpoint.headers } };
      },
    };
    this.env = {
      set: async (vars) => {
        this.#overlay = { ...this.#overlay, ...validateEnv(vars, "env", runtime.provider) };
      },
    };
  }

  /** A snapshot of the sandbox's files, labelled `label` (see the class). */
  snapshot(label?: string): Promise<TanStackSnapshotRef> {
    return takeSnapshot(this.#context, this.id, label);
  }

  /** A new sandbox from this one's state now, through a snapshot deleted once it is up (see the class). */
  async fork(): Promise<SandportSandboxHandle<H>> {
    const forked = await forkSandbox(this.#context, this.id, this.#context.forkLaunch);
    return new SandportSandboxHandle({ ...this.#context, sandbox: forked.sandbox }, forked.handleId, this.#overlay);
  }

  /** Destroys the sandbox, resolving once the runtime has verified it gone. */
  destroy(): Promise<void> {
    return this.#context.runtime.destroy(this.sandbox);
  }

  /** `process.exec` for git: a non-zero exit is a failure, since TanStack AI's git does not read exit codes. */
  async #gitExec(command: string, options: Parameters<TanStackSandboxProcess["exec"]>[1]) {
    const result = await this.process.exec(command, options);
    if (result.exitCode === 0) return result;
    const reason = result.stderr.trim() || `exit status ${result.exitCode}`;
    throw new SandportError({
      code: "UNEXPECTED",
      provider: this.#context.runtime.provider,
      message: `a git command failed (exit status ${result.exitCode}): ${reason}`,
      details: { exitCode: result.exitCode },
    });
  }
}
