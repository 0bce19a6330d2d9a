import { randomUUID } from "node:crypto";
import {
  bridgeBaseDirectory,
  checkBridgeOptions,
  invalidRequest,
  type LaunchSpec,
  type OpOptions,
  type SandboxHandle,
} from "@sandport/core";
import type {
  SandboxCapabilities,
  SandboxCreateInput,
  SandboxDestroyInput,
  SandboxProvider,
  SandboxRestoreInput,
  SandboxResumeInput,
} from "@tanstack/ai-sandbox";
import { tanstackCapabilities } from "./capabilities.js";
import type { HandleContext } from "./context.js";
import { SandportSandboxHandle } from "./handle.js";
import { loadTanStackSandbox, type TanStackSandboxSdk } from "./internal/sdk.js";
import { type LabelledSandbox, launchLabelled } from "./launch-labelled.js";
import {
  SANDBOX_ID_LABEL,
  SANDPORT_SANDBOX_PROVIDER_OPTION_KEYS,
  type SandportSandboxProviderOptions,
} from "./options.js";
import { hasSnapshots } from "./snapshots.js";

/**
 * A TanStack AI `SandboxProvider` over any Sandport runtime, for
 * `defineSandbox({ provider })`. Its name is `sandport-<runtime provider>`.
 *
 * - `create` launches a sandbox labelled `tanstack-ai/sandbox-id=<id>`: the
 *   `id` TanStack AI passes (`defineSandbox`'s sandbox key), else a random
 *   one. Where the runtime can search labels, that id is the handle's `id`,
 *   so the deterministic id is honoured; elsewhere the handle's `id` is the
 *   Sandport sandbox id. A sandbox already labelled with the given id (its
 *   record lost, say) is adopted rather than a second one launched, as a
 *   provider addressing sandboxes by name does, so one id never names two
 *   sandboxes. `env` is merged over `launch.env`. A workspace with a
 *   `local` source is refused (`UnsupportedCapabilityError`) before anything
 *   is launched: the provider cannot copy a host directory in. A `git` source,
 *   skills, instructions and setup are TanStack AI's bootstrap, run after
 *   `create` through the handle. The `policy` is not enforced here: harness
 *   adapters map it onto their own permissions, as with TanStack AI's own providers.
 *   A `launch.network` the runtime cannot enforce (it refuses with
 *   `UNSUPPORTED` before creating anything) is TanStack AI's
 *   `UnsupportedCapabilityError` for `networkPolicy`, the `SandportError` its `cause`.
 * - `resume` finds the sandbox by its label (`findByLabels`), else by its
 *   Sandport id (`getById`), and resolves `null` when it is gone; a runtime
 *   with neither gets TanStack AI's `UnsupportedCapabilityError`.
 * - `destroy` finds it the same way and destroys it; an absent sandbox resolves.
 * - `restoreSnapshot` (only where the runtime has the port's snapshots, as
 *   TanStack AI's contract has it) launches a new sandbox from a snapshot a
 *   handle took (`launch({ from })`), under a fresh id, `env` merged over
 *   `launch.env` as in `create`. Its files are the snapshot's: the
 *   `workspace` is not applied again (TanStack AI does not bootstrap a
 *   restored sandbox either). `defineSandbox` then takes a snapshot after
 *   setup by default and restores from it when the sandbox is gone.
 *   Snapshots outlive their sandbox; TanStack AI never deletes one: the
 *   runtime's `listSnapshots({ "tanstack-ai/sandbox-id": id })` and
 *   `deleteSnapshot` do.
 *
 * `@tanstack/ai-sandbox` is loaded on the first `create`, `resume`, `destroy` or `restoreSnapshot`.
 */
export function sandportSandboxProvider<H extends SandboxHandle>(
  options: SandportSandboxProviderOptions<H>,
): SandboxProvider {
  checkBridgeOptions(options, SANDPORT_SANDBOX_PROVIDER_OPTION_KEYS, "sandportSandboxProvider options");
  return new SandportSandboxProvider(options);
}

class SandportSandboxProvider<H extends SandboxHandle> implements SandboxProvider {
  readonly name: string;
  /** Present only where the runtime has the port's snapshots (see `sandportSandboxProvider`). */
  readonly restoreSnapshot?: (input: SandboxRestoreInput) => Promise<SandportSandboxHandle<H>>;
  readonly #options: SandportSandboxProviderOptions<H>;

  constructor(options: SandportSandboxProviderOptions<H>) {
    this.#options = options;
    this.name = `sandport-${options.runtime.provider}`;
    if (hasSnapshots(options.runtime)) this.restoreSnapshot = (input) => this.#restore(input);
  }

  capabilities(): SandboxCapabilities {
    return tanstackCapabilities(this.#options.runtime);
  }

  async create(input: SandboxCreateInput): Promise<SandportSandboxHandle<H>> {
    const { runtime, launch = {} } = this.#options;
    if (input.id !== undefined && (typeof input.id !== "string" || input.id === "")) {
      throw invalidRequest("create: id must be a non-empty string", { field: "id" }, runtime.provider);
    }
    const sdk = await loadTanStackSandbox();
    if (input.workspace?.source.type === "local") {
      throw new sdk.UnsupportedCapabilityError(
        this.name,
        "workspace.source local",
        "A Sandport sandbox cannot be pre-populated from a host directory: use a git source, or write the files after create.",
      );
    }
    const id = input.id ?? randomUUID();
    if (input.id !== undefined && runtime.findByLabels) {
      // One id never names two sandboxes: a sandbox already labelled with it is the one the id addresses.
      const [existing] = await runtime.findByLabels({ [SANDBOX_ID_LABEL]: id }, opOf(input.signal));
      if (existing) return new SandportSandboxHandle(this.#context(sdk, existing), id);
    }
    const spec = withEnv(launch, input.env);
    const launched = await launchLabelled({ runtime, sdk, providerName: this.name }, spec, id, opOf(input.signal));
    return this.#handle(sdk, launched, spec);
  }

  /** `restoreSnapshot`: a new sandbox from the snapshot, under a fresh id (see `sandportSandboxProvider`). */
  async #restore(input: SandboxRestoreInput): Promise<SandportSandboxHandle<H>> {
    const { runtime, launch = {} } = this.#options;
    if (typeof input.snapshotId !== "string" || input.snapshotId === "") {
      throw invalidRequest(
        "restoreSnapshot: snapshotId must be a non-empty string",
        { field: "snapshotId" },
        runtime.provider,
      );
    }
    const sdk = await loadTanStackSandbox();
    const spec = withEnv(launch, input.env);
    const launched = await launchLabelled(
      { runtime, sdk, providerName: this.name },
      { ...spec, from: input.snapshotId },
      randomUUID(),
      opOf(input.signal),
    );
    return this.#handle(sdk, launched, spec);
  }

  /** The handle of a sandbox this provider launched with `spec`; its forks launch with `spec` too. */
  #handle(sdk: TanStackSandboxSdk, launched: LabelledSandbox<H>, spec: LaunchSpec): SandportSandboxHandle<H> {
    return new SandportSandboxHandle(this.#context(sdk, launched.sandbox, spec), launched.handleId);
  }

  async resume(input: SandboxResumeInput): Promise<SandportSandboxHandle<H> | null> {
    const sdk = await loadTanStackSandbox();
    const sandbox = await this.#find(sdk, input.id, input.signal);
    return sandbox === undefined ? null : new SandportSandboxHandle(this.#context(sdk, sandbox), input.id);
  }

  async destroy(input: SandboxDestroyInput): Promise<void> {
    const sdk = await loadTanStackSandbox();
    const sandbox = await this.#find(sdk, input.id, input.signal);
    if (sandbox !== undefined) await this.#options.runtime.destroy(sandbox, opOf(input.signal));
  }

  /** The sandbox a handle `id` of this provider names, or `undefined` when it is gone. */
  async #find(sdk: TanStackSandboxSdk, id: string, signal: AbortSignal | undefined): Promise<H | undefined> {
    const { runtime } = this.#options;
    if (typeof id !== "string" || id === "") {
      throw invalidRequest("id must be a non-empty string", { field: "id" }, runtime.provider);
    }
    if (runtime.findByLabels) {
      const [found] = await runtime.findByLabels({ [SANDBOX_ID_LABEL]: id }, opOf(signal));
      return found;
    }
    if (runtime.getById) return runtime.getById(id, opOf(signal));
    throw new sdk.UnsupportedCapabilityError(
      this.name,
      "resume",
      `The Sandport runtime "${runtime.provider}" has neither \`findByLabels\` nor \`getById\`.`,
    );
  }

  /** What a handle shares; `launched` is the spec the sandbox was launched with, when known (for its forks). */
  #context(sdk: TanStackSandboxSdk, sandbox: H, launched?: LaunchSpec): HandleContext<H> {
    const { runtime, commandTimeoutMs, launch = {} } = this.#options;
    return {
      runtime,
      sandbox,
      sdk,
      providerName: this.name,
      forkLaunch: launched ?? launch,
      baseDirectory: bridgeBaseDirectory(this.#options),
      ...(commandTimeoutMs === undefined ? {} : { commandTimeoutMs }),
    };
  }
}

function opOf(signal: AbortSignal | undefined): OpOptions {
  return signal === undefined ? {} : { signal };
}

/** `launch` with `env` merged over its own, as `create` and `restoreSnapshot` launch. */
function withEnv(launch: LaunchSpec, env: Record<string, string> | undefined): LaunchSpec {
  return env === undefined ? launch : { ...launch, env: { ...launch.env, ...env } };
}
