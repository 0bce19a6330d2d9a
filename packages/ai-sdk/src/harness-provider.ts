import type { HarnessV1NetworkSandboxSession, HarnessV1SandboxProvider } from "@ai-sdk/harness";
import {
  checkBridgeOptions,
  invalidRequest,
  isNetworkRefusal,
  type Labels,
  type SandboxHandle,
  SandportError,
  validateNetworkPolicy,
} from "@sandport/core";
import { identitySnapshots, newestIdentitySnapshot } from "./harness-identity-snapshots.js";
import { type MappedNetworkPolicy, mapHarnessNetworkPolicy } from "./harness-network-policy.js";
import {
  HARNESS_PROVIDER_OPTION_KEYS,
  type HarnessSandboxProviderOptions,
  IDENTITY_LABEL,
  SESSION_LABEL,
} from "./harness-options.js";
import { harnessCapabilityUnsupported, harnessUnsupportedFrom } from "./internal/unsupported.js";
import { networkSession } from "./network-session.js";
import { sessionOf } from "./session.js";
import { opOptions, sessionContext } from "./session-context.js";

/** The harness's `createSession` options. */
type CreateOptions = NonNullable<Parameters<HarnessV1SandboxProvider["createSession"]>[0]>;

/**
 * A `HarnessV1SandboxProvider` for `@ai-sdk/harness`'s `HarnessAgent`
 * (`sandbox: createHarnessSandboxProvider({ runtime })`), launching one
 * sandbox per harness session. A `sessionId` is stored as a label: creating
 * with one that already has a sandbox adopts it, and `resumeSession` (present
 * only when the runtime has `findByLabels`) finds it again from another
 * process. `onFirstCreate` runs right after a fresh launch; a failure there
 * destroys the sandbox. Where the runtime has the port's snapshots and the
 * harness gives an `identity`, the sandbox is then snapshotted (labelled
 * `ai-sdk.harness/identity=<identity>`), and a later `createSession` with the
 * same identity launches from the newest such snapshot and skips
 * `onFirstCreate`: the bootstrap is baked in, as the contract asks of a
 * snapshot-capable provider. Without snapshots every fresh launch runs it. `networkPolicy` (or
 * `launch.network`) is the policy each sandbox is launched with; the
 * runtime's refusal of it (`UNSUPPORTED`, before anything is created) and a
 * `deniedCIDRs` list are `HarnessCapabilityUnsupportedError`, and the
 * session's `setNetworkPolicy` accepts only that same policy. No I/O until asked.
 */
export function createHarnessSandboxProvider<H extends SandboxHandle>(
  options: HarnessSandboxProviderOptions<H>,
): HarnessV1SandboxProvider {
  checkBridgeOptions(options, HARNESS_PROVIDER_OPTION_KEYS, "createHarnessSandboxProvider options");
  const { runtime } = options;
  const ports = options.launch?.ports ?? [];
  const network = launchNetwork(options, runtime.provider);
  const contextOf = (handle: H) =>
    sessionContext({
      runtime,
      handle,
      ...(options.workingDirectory === undefined ? {} : { workingDirectory: options.workingDirectory }),
      ...(options.commandTimeoutMs === undefined ? {} : { commandTimeoutMs: options.commandTimeoutMs }),
    });
  // A sandbox launched here has the policy it was launched with; one found by its label, whatever it was given.
  const wrap = (handle: H, launched: boolean) =>
    networkSession(contextOf(handle), ports, launched ? network?.network : undefined);

  const findSession = async (sessionId: string, abortSignal?: AbortSignal): Promise<H | undefined> => {
    if (!runtime.findByLabels) return undefined;
    const [found] = await runtime.findByLabels({ [SESSION_LABEL]: sessionId }, opOptions(abortSignal));
    return found;
  };

  const createSession = async (create: CreateOptions = {}): Promise<HarnessV1NetworkSandboxSession> => {
    const { sessionId, abortSignal, identity, onFirstCreate } = create;
    if (network?.unenforceable !== undefined) {
      throw await harnessCapabilityUnsupported(runtime.provider, "network policy", network.unenforceable);
    }
    const existing = sessionId === undefined ? undefined : await findSession(sessionId, abortSignal);
    if (existing) return wrap(existing, false);
    const labels: Labels = {
      ...options.launch?.labels,
      ...(sessionId === undefined ? {} : { [SESSION_LABEL]: sessionId }),
      ...(identity === undefined ? {} : { [IDENTITY_LABEL]: identity }),
    };
    // A bootstrap snapshotted for this identity is launched from instead of bootstrapping again.
    const snapshots = identity === undefined ? undefined : identitySnapshots(runtime);
    const seed =
      snapshots === undefined || identity === undefined
        ? undefined
        : await newestIdentitySnapshot(snapshots, identity, abortSignal);
    const spec = {
      ...options.launch,
      labels,
      ...(network === undefined ? {} : { network: network.network }),
      ...(seed === undefined ? {} : { from: seed }),
    };
    const handle = await runtime.launch(spec, opOptions(abortSignal)).catch(async (error: unknown) => {
      throw isNetworkRefusal(error) ? await harnessUnsupportedFrom(error) : error;
    });
    if (onFirstCreate && seed === undefined) {
      try {
        await onFirstCreate(sessionOf(contextOf(handle)), abortSignal === undefined ? {} : { abortSignal });
        if (snapshots !== undefined && identity !== undefined) {
          await snapshots.snapshot(handle, { labels: { [IDENTITY_LABEL]: identity }, ...opOptions(abortSignal) });
        }
      } catch (error) {
        await runtime.destroy(handle).catch(() => {});
        throw error;
      }
    }
    return wrap(handle, true);
  };

  const resumeSession = async ({ sessionId, abortSignal }: { sessionId: string; abortSignal?: AbortSignal }) => {
    const found = await findSession(sessionId, abortSignal);
    if (!found) {
      throw new SandportError({
        code: "NOT_FOUND",
        provider: runtime.provider,
        message: `no ${runtime.provider} sandbox carries the harness session id ${JSON.stringify(sessionId)}`,
        details: { sessionId },
      });
    }
    return wrap(found, false);
  };

  return {
    specificationVersion: "harness-sandbox-v1",
    providerId: options.providerId ?? `sandport-${runtime.provider}`,
    createSession,
    ...(runtime.findByLabels ? { resumeSession } : {}),
  };
}

/**
 * The policy every sandbox is launched with: `networkPolicy` mapped to the
 * port's terms, else `launch.network` as validated, else none (the runtime's
 * default). Both given is `INVALID_REQUEST`: one policy, said once.
 */
function launchNetwork(
  options: HarnessSandboxProviderOptions<SandboxHandle>,
  provider: string,
): MappedNetworkPolicy | undefined {
  const fromLaunch = validateNetworkPolicy(options.launch?.network, provider);
  if (options.networkPolicy === undefined) return fromLaunch === undefined ? undefined : { network: fromLaunch };
  if (fromLaunch !== undefined) {
    throw invalidRequest(
      "createHarnessSandboxProvider options: give networkPolicy or launch.network, not both",
      { field: "networkPolicy" },
      provider,
    );
  }
  return mapHarnessNetworkPolicy(options.networkPolicy, "createHarnessSandboxProvider options.networkPolicy", provider);
}
