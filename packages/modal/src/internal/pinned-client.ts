import { randomUUID } from "node:crypto";
import { SandportError } from "@sandport/core";
import { deadlineMiddleware } from "./call-scope.js";
import type { ModalClient, ModalLogger, ModalSdkModule } from "./sdk-types.js";

/** What a client is built from: the runtime's options, nothing else. */
export interface PinnedSettings {
  readonly serverUrl: string;
  readonly tokenId: string;
  readonly tokenSecret: string;
  readonly environment: string;
  readonly maxThrottleWaitSecs: number;
}

/**
 * A profile name no `~/.modal.toml` holds, so the SDK's profile lookup finds
 * nothing in the file it parsed at import: none of the file's values apply.
 */
const UNUSED_PROFILE = `sandport-pinned-${randomUUID()}`;

/** Drops the SDK's log lines (its warnings say nothing the adapter's errors do not). */
const SILENT: ModalLogger = { debug() {}, info() {}, warn() {}, error() {} };

/**
 * Builds a `ModalClient` that uses only `settings`, whatever `MODAL_*`
 * variables or `~/.modal.toml` say.
 *
 * The SDK takes its server URL only from `MODAL_SERVER_URL` or the active
 * profile of the config file it parsed when it was imported (its `endpoint`
 * option is never read), and several settings only from the environment
 * (`MODAL_SANDBOX_V2`, `MODAL_SANDBOX_CHANNEL_IDLE_TIMEOUT`,
 * `MODAL_IMAGE_BUILDER_VERSION`, ...). So, for the duration of the
 * constructor, which is synchronous: every `MODAL_*` variable is removed,
 * `MODAL_SERVER_URL` is the configured URL, `MODAL_SANDBOX_V2` is `true`, and
 * `MODAL_PROFILE` names a profile no config file holds; everything else is
 * passed as a parameter. The environment is restored before the constructor's
 * caller continues, so no other code in this process observes the change
 * (this is the one process-wide side effect, and the only place the package
 * touches `process.env`). The client's resulting profile is then checked: if
 * the SDK took anything from elsewhere, nothing is sent and the call fails.
 */
export function createPinnedClient(sdk: ModalSdkModule, settings: PinnedSettings): ModalClient {
  const saved = Object.entries(process.env).filter(([name]) => name.startsWith("MODAL_"));
  let client: ModalClient;
  try {
    for (const [name] of saved) delete process.env[name];
    process.env.MODAL_SERVER_URL = settings.serverUrl;
    process.env.MODAL_SANDBOX_V2 = "true";
    process.env.MODAL_PROFILE = UNUSED_PROFILE;
    client = new sdk.ModalClient({
      tokenId: settings.tokenId,
      tokenSecret: settings.tokenSecret,
      environment: settings.environment,
      logger: SILENT,
      logLevel: "warn",
      maxThrottleWaitSecs: settings.maxThrottleWaitSecs,
      grpcMiddleware: [deadlineMiddleware],
    });
  } finally {
    for (const name of Object.keys(process.env)) if (name.startsWith("MODAL_")) delete process.env[name];
    for (const [name, value] of saved) process.env[name] = value;
  }
  checkProfile(client, settings);
  return client;
}

/** Refuses a client whose profile is not exactly the pinned one (a changed SDK, say). */
function checkProfile(client: ModalClient, settings: PinnedSettings): void {
  const { profile } = client;
  const wrong = [
    profile.serverUrl !== settings.serverUrl && "server URL",
    profile.sandboxV2 !== true && "sandbox API version",
    (profile.tokenId !== settings.tokenId || profile.tokenSecret !== settings.tokenSecret) && "token",
    (profile.oauthRefreshToken !== undefined || profile.oauthClientId !== undefined) && "OAuth credentials",
    profile.environment !== settings.environment && "environment",
    profile.imageBuilderVersion !== undefined && "image builder version",
  ].filter((field): field is string => typeof field === "string");
  if (wrong.length === 0) return;
  throw new SandportError({
    code: "SDK_UNAVAILABLE",
    provider: "modal",
    retryable: false,
    message: `the modal SDK did not take the configuration it was given (${wrong.join(", ")} came from elsewhere); nothing was sent. Install modal@">=0.11 <1".`,
    details: { fields: wrong },
  });
}
