import type { HarnessV1NetworkPolicy } from "@ai-sdk/harness";
import { BRIDGE_OPTION_SHAPE, type BridgeOptions, keyList, type LaunchSpec, type SandboxHandle } from "@sandport/core";

/** Label carrying the harness `sessionId` a sandbox was created for: `resumeSession` finds it by this. */
export const SESSION_LABEL = "ai-sdk.harness/session-id";
/** Label carrying the bootstrap identity the harness asked for, where it gave one. */
export const IDENTITY_LABEL = "ai-sdk.harness/identity";

/** What {@link createHarnessSandboxProvider} needs; `workingDirectory` is each session's `defaultWorkingDirectory`. */
export interface HarnessSandboxProviderOptions<H extends SandboxHandle = SandboxHandle> extends BridgeOptions<H> {
  /**
   * What each sandbox is launched with. Its `ports` are the session's
   * `ports`, reachable through `getPortEndpoint`; its labels are kept beside
   * the session labels. Default: the runtime's defaults and no ports.
   */
  readonly launch?: LaunchSpec;
  /**
   * The sandboxes' outbound network policy, in the harness's terms, applied
   * when each sandbox is launched (the port sets a policy at launch only):
   * `allow-all` is the launch's `network: "all"`, `deny-all` is `"none"`,
   * `custom` an allow list of its `allowedHosts` and `allowedCIDRs`. A
   * `deniedCIDRs` list, or a policy the runtime cannot enforce, is the
   * harness's `HarnessCapabilityUnsupportedError` before anything is
   * launched. Give this or `launch.network`, not both. Default: the runtime's.
   */
  readonly networkPolicy?: HarnessV1NetworkPolicy;
  /** The provider's `providerId`. Default: `sandport-<runtime.provider>`. */
  readonly providerId?: string;
}

/** Every key of {@link HarnessSandboxProviderOptions}; any other is refused, naming the nearest known one. */
export const HARNESS_PROVIDER_OPTION_KEYS = keyList<HarnessSandboxProviderOptions>({
  ...BRIDGE_OPTION_SHAPE,
  launch: true,
  networkPolicy: true,
  providerId: true,
});
