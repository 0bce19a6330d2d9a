import type { ResolvedOptions } from "../options.js";
import type { AgentCoreClient, AgentCoreClientConfig, AgentCoreSdkModule } from "./sdk-types.js";

/** The two clients a runtime uses: one that retries what is safe to repeat, one that never repeats. */
export interface PinnedClients {
  /** Start (its `clientToken` makes a repeat harmless), Get, List, Stop, and Invoke of the file reads. */
  readonly safe: AgentCoreClient;
  /** Invoke of anything with effects (a command, a write, a removal): one attempt, never repeated by the SDK. */
  readonly once: AgentCoreClient;
}

/** The connect timeout of every request: a dead endpoint fails fast; the call's deadline bounds the rest. */
const CONNECTION_TIMEOUT_MS = 10_000;

/**
 * The runtime's clients, built from its options alone. Each setting the SDK
 * would otherwise load from `AWS_*` variables, `~/.aws/config` /
 * `credentials` (any profile), SSO caches, `credential_process`, web identity,
 * or container and instance metadata is passed explicitly, so none of those
 * loaders runs:
 *
 * - `credentials` a static object (the provider chain is never consulted),
 *   and `credentialDefaultProvider` one that refuses, should anything ask it;
 * - `region`, `endpoint` (custom endpoints skip `AWS_ENDPOINT_URL*` and the
 *   config file's `services`), `useFipsEndpoint`, `useDualstackEndpoint`;
 * - `maxAttempts` and `retryMode` (`AWS_MAX_ATTEMPTS`, `AWS_RETRY_MODE`);
 * - `defaultsMode` (`AWS_DEFAULTS_MODE`, and "auto"'s metadata lookup);
 * - `userAgentAppId`, `authSchemePreference`, `disableClockSkewCorrection`
 *   (read from the config file on every signed request otherwise);
 * - `requestHandler` as options, not a defaults-mode provider.
 *
 * `ambient-env.wire.test.ts` plants every one of those sources and proves none is read or reached.
 */
export function pinnedClients(sdk: AgentCoreSdkModule, options: ResolvedOptions): PinnedClients {
  const build = (maxAttempts: number) => new sdk.BedrockAgentCoreClient(clientConfig(options, maxAttempts));
  return { safe: build(options.maxAttempts), once: build(1) };
}

/** The whole configuration of one client (exported for the ambient test's armed-trap check). */
export function clientConfig(options: ResolvedOptions, maxAttempts: number): AgentCoreClientConfig {
  return {
    region: options.region,
    endpoint: options.endpoint,
    credentials: { ...options.credentials },
    credentialDefaultProvider: () => async () => {
      throw new Error("AgentCoreRuntime takes its credentials from its options only");
    },
    maxAttempts,
    retryMode: "standard",
    defaultsMode: "standard",
    useFipsEndpoint: false,
    useDualstackEndpoint: false,
    userAgentAppId: "sandport",
    authSchemePreference: ["sigv4"],
    disableClockSkewCorrection: false,
    requestHandler: { connectionTimeout: CONNECTION_TIMEOUT_MS },
  };
}
