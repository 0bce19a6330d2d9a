import type {
  Manifest,
  SandboxClient,
  SandboxClientCreateArgs,
  SandboxClientOptions,
  SandboxSessionSerializationOptions,
} from "@openai/agents-core/sandbox";
import {
  checkBridgeOptions,
  isNetworkRefusal,
  keyList,
  type LaunchSpec,
  type SandboxHandle,
  type SandboxRuntime,
} from "@sandport/core";
import { type AgentsSdk, loadAgentsSdk } from "./internal/sdk.js";
import { applyPlan, checkConcurrencyLimits, planManifest, rootedManifest } from "./manifest.js";
import { persistentEnvironment, restoredEnvironment } from "./persisted-environment.js";
import { SandportSandboxSession, type SandportSessionState } from "./session.js";
import {
  checkSnapshotSpec,
  hasSnapshots,
  recordedSnapshot,
  recordedSnapshotSpec,
  replaceSnapshot,
} from "./snapshots.js";

/** What {@link SandportSandboxClient} is built from. */
export interface SandportSandboxClientOptions<H extends SandboxHandle = SandboxHandle> {
  /** The runtime every session's sandbox is launched in. */
  readonly runtime: SandboxRuntime<H>;
  /** How each sandbox is launched (labels, env, ports, ...). Default: `{}`. */
  readonly launch?: LaunchSpec;
}

/** Every key of {@link SandportSandboxClientOptions}; any other is refused, naming the nearest known one. */
export const SANDBOX_CLIENT_OPTION_KEYS = keyList<SandportSandboxClientOptions>({ runtime: true, launch: true });

/**
 * An OpenAI Agents `SandboxClient` that launches one Sandport sandbox per
 * session, on any runtime: pass it as `run(agent, input, { sandbox: { client } })`.
 * `create` checks the manifest before launching (entries the port cannot
 * write are refused with `SandboxUnsupportedFeatureError`, nothing launched)
 * and writes it before returning;
 * `delete` destroys the sandbox; sessions serialise to their handle and
 * `resume` finds the sandbox again by id (needs the runtime's `getById`).
 *
 * Snapshots: with `snapshot: sandportSnapshot()` (where the runtime has the
 * port's snapshots), serialising a session's state takes a snapshot of its
 * workspace, replacing the one before, and `resume` of a state whose sandbox
 * is gone launches a new sandbox from it, as UnixLocal restores its snapshot
 * into a new workspace. A sandbox still there is resumed as it is.
 */
export class SandportSandboxClient<H extends SandboxHandle = SandboxHandle>
  implements SandboxClient<SandboxClientOptions, SandportSessionState<H>>
{
  /** The backend id RunState records: `"sandport"`. */
  readonly backendId = "sandport";
  /** The runtime sessions run on. */
  readonly runtime: SandboxRuntime<H>;
  readonly #launch: LaunchSpec;

  /** Refuses (`INVALID_REQUEST`) options with an unknown key, naming the nearest known one. */
  constructor(options: SandportSandboxClientOptions<H>) {
    checkBridgeOptions(options, SANDBOX_CLIENT_OPTION_KEYS, "SandportSandboxClient options");
    this.runtime = options.runtime;
    this.#launch = options.launch ?? {};
  }

  /**
   * Launches a sandbox for a new session and writes the manifest into it, as
   * the framework's own clients do, so the session is ready when this
   * returns (`start` has nothing left to do). The manifest is checked and its
   * environment resolved before anything is launched; a manifest that fails
   * to be written destroys the sandbox before the error is passed on.
   */
  async create(
    args?: SandboxClientCreateArgs<SandboxClientOptions> | Manifest,
    manifestOptions?: SandboxClientOptions,
  ): Promise<SandportSandboxSession<H>> {
    const sdk = await loadAgentsSdk();
    const normalized = sdk.normalizeSandboxClientCreateArgs(args, manifestOptions);
    checkConcurrencyLimits(sdk, this.runtime.provider, normalized.concurrencyLimits);
    const manifest = rootedManifest(sdk, normalized.manifest, this.runtime.workspaceRoot, this.runtime.provider);
    const snapshotSpec = checkSnapshotSpec(sdk, this.runtime, normalized.snapshot, manifest);
    const plan = planManifest(sdk, this.runtime, manifest);
    const environment = await manifest.resolveEnvironment();
    const sandbox = await this.#launchSandbox(sdk, this.#launch);
    try {
      await applyPlan(this.runtime, sandbox, plan);
    } catch (error) {
      // The session never reaches the caller, so nobody else could destroy this sandbox.
      try {
        await this.runtime.destroy(sandbox);
      } catch (destroyError) {
        throw new sdk.SandboxLifecycleError(
          `the manifest could not be written and sandbox ${sandbox.id} could not be destroyed: ${messageOf(error)}; destroy: ${messageOf(destroyError)}`,
          { provider: this.runtime.provider, sandboxId: sandbox.id, cause: error, destroyError },
        );
      }
      throw error;
    }
    return new SandportSandboxSession({
      runtime: this.runtime,
      state: { manifest, environment, sandbox, workspaceReady: true, snapshotSpec, snapshot: null },
    });
  }

  /**
   * Launches `spec`. The framework's client contract has no network policy: a
   * `launch.network` the runtime cannot enforce (refused before anything is
   * created) is reported as the framework reports a feature a sandbox lacks.
   */
  #launchSandbox(sdk: AgentsSdk, spec: LaunchSpec): Promise<H> {
    return this.runtime.launch(spec).catch((error: unknown) => {
      if (!isNetworkRefusal(error)) throw error;
      throw new sdk.SandboxUnsupportedFeatureError(error.message, {
        provider: this.runtime.provider,
        feature: "network",
        cause: error,
      });
    });
  }

  /** Destroys the session's sandbox. */
  async delete(state: SandportSessionState<H>): Promise<void> {
    await this.runtime.destroy(state.sandbox);
  }

  /**
   * What a session's state is stored as (by RunState, or by a caller on its
   * own): the manifest, as the framework's own clients store it
   * (`serializeManifestRecord`: its persistent environment only), the handle,
   * and the resolved environment less what the manifest marks ephemeral or
   * draws from a secret reference, which never reach the serialised state.
   * Under a `sandportSnapshot()` spec it first takes a snapshot of the
   * workspace (deleting the session's previous one, as UnixLocal replaces
   * its snapshot when it serialises), and records it and the spec.
   */
  async serializeSessionState(
    state: SandportSessionState<H>,
    _options?: SandboxSessionSerializationOptions,
  ): Promise<Record<string, unknown>> {
    const sdk = await loadAgentsSdk();
    const spec = state.snapshotSpec ?? null;
    if (spec !== null) await replaceSnapshot(sdk, this.runtime, state, spec);
    return {
      manifest: sdk.serializeManifestRecord(state.manifest),
      sandbox: structuredClone(state.sandbox),
      environment: persistentEnvironment(sdk, state.manifest, state.environment),
      ...(spec === null ? {} : { snapshotSpec: structuredClone(spec), snapshot: structuredClone(state.snapshot) }),
    };
  }

  /**
   * Rebuilds a session state from {@link serializeSessionState}'s record (its
   * manifest read back with the framework's `deserializeManifest`, as its own
   * clients do); the manifest's secret references are resolved again.
   */
  async deserializeSessionState(state: Record<string, unknown>): Promise<SandportSessionState<H>> {
    const sdk = await loadAgentsSdk();
    const sandbox = state.sandbox as H | undefined;
    if (typeof sandbox?.id !== "string" || sandbox.provider !== this.runtime.provider) {
      throw new sdk.SandboxConfigurationError(`the session state names no ${this.runtime.provider} sandbox`, {
        provider: this.runtime.provider,
      });
    }
    const manifest = sdk.deserializeManifest(state.manifest as Record<string, unknown> | undefined);
    return {
      ...state,
      manifest,
      sandbox,
      environment: await restoredEnvironment(sdk, manifest, state.environment),
      workspaceReady: true,
      snapshotSpec: recordedSnapshotSpec(state.snapshotSpec),
      snapshot: recordedSnapshot(state.snapshot, this.runtime.provider),
    };
  }

  /**
   * Reconnects to a session's sandbox by id (the runtime's `getById`). A
   * sandbox that is gone is restored from the state's snapshot, if it has one
   * (a new sandbox launched from it, which the returned session's state
   * names); without one it is `SandboxLifecycleError`.
   */
  async resume(state: SandportSessionState<H>): Promise<SandportSandboxSession<H>> {
    const sdk = await loadAgentsSdk();
    const getById = this.runtime.getById;
    if (typeof getById !== "function") {
      throw new sdk.SandboxUnsupportedFeatureError(`${this.runtime.provider} has no getById: sessions cannot resume`, {
        provider: this.runtime.provider,
        feature: "resume",
      });
    }
    const sandbox = await getById.call(this.runtime, state.sandbox.id);
    const snapshot = state.snapshot ?? null;
    if (sandbox === undefined && snapshot !== null) {
      if (!hasSnapshots(this.runtime)) {
        throw new sdk.SandboxUnsupportedFeatureError(
          `sandbox ${state.sandbox.id} is gone and ${this.runtime.provider} has no snapshots to restore it from`,
          { provider: this.runtime.provider, feature: "snapshot" },
        );
      }
      const restored = await this.#launchSandbox(sdk, { ...this.#launch, from: snapshot.ref });
      return new SandportSandboxSession({ runtime: this.runtime, state: { ...state, sandbox: restored } });
    }
    if (sandbox === undefined) {
      throw new sdk.SandboxLifecycleError(`sandbox ${state.sandbox.id} is gone: the session cannot resume`, {
        provider: this.runtime.provider,
        sandboxId: state.sandbox.id,
      });
    }
    return new SandportSandboxSession({ runtime: this.runtime, state: { ...state, sandbox } });
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
