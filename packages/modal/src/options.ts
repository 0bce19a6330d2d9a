import { keyList, type OperationTimeouts } from "@sandport/core";
import {
  OptionReader,
  REMOTE_RUNTIME_OPTION_SHAPE,
  type RemoteRuntimeExtras,
  type RemoteRuntimeOptions,
  type ResolvedRemote,
  remoteTimeouts,
} from "@sandport/core/adapter";
import { PROVIDER } from "./handle.js";
import type { ModalSdkSource } from "./internal/sdk.js";

/** Longest sandbox lifetime and idle timeout Modal takes: 24 hours. */
export const MAX_MODAL_LIFETIME_MS = 24 * 60 * 60 * 1000;

/**
 * Options of {@link ModalRuntime}. Nothing is read from the environment or
 * from `~/.modal.toml`: every value comes from here. The common and remote
 * options (`owner`, `runBudgetMs`, `maxOutputBytes`, `timeouts`, `network`,
 * `orphanCleanupMs`, `sdk` for the `modal` package, `onBackgroundError`) mean
 * what they mean in every runtime; `owner` is the value of the `sandport.owner`
 * tag, `network` (default `true`) sets `blockNetwork`, always sent, and
 * `workspaceRoot`, default `/workspace`, is the working directory of every
 * command, the sandbox's `workdir` (its home for this port).
 */
export interface ModalRuntimeOptions
  extends RemoteRuntimeOptions<ModalSdkSource>,
    Pick<RemoteRuntimeExtras, "workspaceRoot"> {
  /** Token id (`ak-…`). Required: nothing is read from `MODAL_TOKEN_ID` or a profile. */
  readonly tokenId: string;
  /** Token secret (`as-…`), the other half of the pair. Required. */
  readonly tokenSecret: string;
  /** The control plane's URL. Default `https://api.modal.com:443` (Modal's). */
  readonly serverUrl?: string;
  /** Modal environment the App and its sandboxes live in. Default `main`. */
  readonly environment?: string;
  /** App the sandboxes are created in (created if missing). Default `sandport`. */
  readonly appName?: string;
  /**
   * Image launched when `LaunchSpec.template` is absent: a registry reference
   * (`python:3.13-slim`) or an image id (`im-…`). Default `python:3.13-slim`
   * (it has the `sh`, `grep` and `realpath` the adapter's helper commands use).
   */
  readonly image?: string;
  /**
   * Sandbox lifetime in ms when `LaunchSpec.lifetimeMs` is absent: whole
   * seconds, at most 24 hours. Required and always sent (the SDK's own default
   * is 5 minutes). A `LaunchSpec.lifetimeMs` is rounded down to whole seconds.
   */
  readonly maxLifetimeMs: number;
  /** Ends a sandbox idle this long (whole seconds, at most 24 hours). Default: none, only the lifetime. */
  readonly idleTimeoutMs?: number;
  /**
   * How `LaunchSpec.ports` are tunnelled: `tls` (an `https://` URL; TLS ends
   * at Modal) or `tcp` (a plain TCP tunnel: `http://host:port`). Default `tls`.
   */
  readonly tunnels?: "tls" | "tcp";
  /**
   * How long, in ms, the SDK may wait in all on the server's retry-after
   * hints before a call fails `RATE_LIMITED` (0: never wait). Always sent
   * (the SDK's own default is unbounded). Default 60 000.
   */
  readonly maxThrottleWaitMs?: number;
}

/** Every option `ModalRuntime` takes; any other is refused, naming the nearest known one. */
export const MODAL_OPTION_KEYS = keyList<ModalRuntimeOptions>({
  ...REMOTE_RUNTIME_OPTION_SHAPE,
  tokenId: true,
  tokenSecret: true,
  serverUrl: true,
  environment: true,
  appName: true,
  image: true,
  workspaceRoot: true,
  maxLifetimeMs: true,
  idleTimeoutMs: true,
  tunnels: true,
  maxThrottleWaitMs: true,
});

/** Options after defaults and validation: every option set, but the idle timeout, which may stay unset. */
export type ResolvedOptions = ResolvedRemote<typeof MODAL_DEFAULTS> &
  Required<Omit<ModalRuntimeOptions, keyof RemoteRuntimeOptions<unknown> | "idleTimeoutMs">> & {
    readonly idleTimeoutMs: number | undefined;
  };

/**
 * Default per-call deadlines, used when a call's `OpOptions.timeoutMs` is
 * absent. `launchMs` covers resolving the App and image (the first launch
 * builds the image) and the create; `lifecycleMs` is unused (no stop/start).
 */
export const DEFAULT_MODAL_TIMEOUTS: OperationTimeouts = remoteTimeouts({ launchMs: 180_000, lifecycleMs: 60_000 });

/** The defaults of the remote options Modal shares. */
const MODAL_DEFAULTS = { timeouts: DEFAULT_MODAL_TIMEOUTS, network: true, workspaceRoot: "/workspace" } as const;

/** Validates options and fills defaults. Throws `INVALID_REQUEST`; does no I/O. */
export function resolveOptions(given: ModalRuntimeOptions): ResolvedOptions {
  const read = new OptionReader("ModalRuntime", PROVIDER);
  const options = read.object(given, MODAL_OPTION_KEYS);
  const remote = read.remote(options, MODAL_DEFAULTS);
  const maxLifetimeMs = wholeSeconds(read, options.maxLifetimeMs, "maxLifetimeMs");
  if (maxLifetimeMs === undefined) {
    throw read.refuse("maxLifetimeMs", "is required (always sent; the SDK's own default is 5 minutes)");
  }
  const tunnels = options.tunnels ?? "tls";
  if (tunnels !== "tls" && tunnels !== "tcp") throw read.refuse("tunnels", 'must be "tls" or "tcp"');
  const environment = read.text(options.environment, "environment") ?? "main";
  const appName = read.text(options.appName, "appName") ?? "sandport";
  for (const [field, value] of [
    ["environment", environment],
    ["appName", appName],
  ] as const) {
    if (!/^[A-Za-z0-9._-]{1,64}$/.test(value)) throw read.refuse(field, "must be 1-64 characters of [A-Za-z0-9._-]");
  }
  const throttle = read.integer(options.maxThrottleWaitMs, "maxThrottleWaitMs", 0, MAX_MODAL_LIFETIME_MS);
  return {
    ...remote,
    tokenId: read.requiredText(options.tokenId, "tokenId", "nothing is read from MODAL_TOKEN_ID or ~/.modal.toml"),
    tokenSecret: read.requiredText(
      options.tokenSecret,
      "tokenSecret",
      "nothing is read from MODAL_TOKEN_SECRET or ~/.modal.toml",
    ),
    serverUrl: read.url(options.serverUrl, "serverUrl") ?? "https://api.modal.com:443",
    environment,
    appName,
    image: read.text(options.image, "image") ?? "python:3.13-slim",
    maxLifetimeMs,
    idleTimeoutMs: wholeSeconds(read, options.idleTimeoutMs, "idleTimeoutMs"),
    tunnels,
    maxThrottleWaitMs: throttle ?? 60_000,
  };
}

/** A duration Modal counts in whole seconds: 1 s to 24 h, a multiple of 1000 ms; `undefined` when absent. */
function wholeSeconds(read: OptionReader, value: unknown, field: string): number | undefined {
  const ms = read.integer(value, field, 1000, MAX_MODAL_LIFETIME_MS);
  if (ms !== undefined && ms % 1000 !== 0) throw read.refuse(field, "must be whole seconds (a multiple of 1000)");
  return ms;
}
