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
import type { E2BSdkSource } from "./internal/sdk.js";

/**
 * Options of {@link E2BRuntime}. Nothing is read from the environment: every
 * value comes from here. The common and remote options (`owner`,
 * `runBudgetMs`, `maxOutputBytes`, `timeouts`, `network`, `orphanCleanupMs`,
 * `sdk` for the `e2b` package, `onBackgroundError`) mean what they mean in
 * every runtime; here `network` is always sent, default `true` (E2B's own),
 * `workspaceRoot` defaults to `/home/user/workspace` and `listPageSize` is
 * 1-100 (E2B answers 400 above 100), default 100.
 */
export interface E2BRuntimeOptions
  extends RemoteRuntimeOptions<E2BSdkSource>,
    Pick<RemoteRuntimeExtras, "workspaceRoot" | "listPageSize"> {
  /** E2B API key. Required and never empty (the SDK would fall back to `E2B_API_KEY`). */
  readonly apiKey: string;
  /** E2B domain. Default `e2b.app`. */
  readonly domain?: string;
  /** Control-plane base URL. Default `https://api.<domain>`. */
  readonly apiUrl?: string;
  /**
   * Base URL of the in-sandbox API (envd), for emulators and self-hosted
   * deployments that serve every sandbox from one origin. Default: for E2B's
   * hosted domains `https://sandbox.<domain>`; for any other domain the
   * per-sandbox address `https://49983-<id>.<domain>`, which costs one extra
   * `connect` request after a create (the SDK cannot be told it beforehand).
   * When given, `portEndpoint` answers with this URL too, plus the routing
   * headers `E2b-Sandbox-Id` and `E2b-Sandbox-Port`, as the SDK reaches envd
   * through it.
   */
  readonly sandboxUrl?: string;
  /** Template launched when `LaunchSpec.template` is absent. Default `base`. */
  readonly template?: string;
  /**
   * Sandbox lifetime in ms when `LaunchSpec.lifetimeMs` is absent. Always sent. Default 3 600 000 (1 hour).
   * Connecting to a sandbox this instance did not launch (first use of a reattached handle) and
   * `start` also send it, which extends a running sandbox's remaining life to at least this much.
   */
  readonly lifetimeMs?: number;
  /**
   * Whether a sandbox's ports answer anyone who knows their URL. `false`
   * launches private sandboxes: every request to one of their ports must carry
   * the sandbox's traffic access token, which `portEndpoint` returns in its
   * `headers`. Always sent (`network.allowPublicTraffic`); fixed at launch.
   * Default `true` (E2B's own default).
   */
  readonly allowPublicTraffic?: boolean;
  /** How often the SDK itself retries a control-plane 429 that carries `Retry-After`, 0-10. Default 3. */
  readonly rateLimitRetries?: number;
  /**
   * Absolute directory inside the sandbox where async commands keep their
   * output and exit records. Default `/home/user/.sandport/commands` (beside,
   * not inside, the default workspace). Stdin too large to embed in a command
   * is staged in `stdin` beside it.
   */
  readonly commandStateDirectory?: string;
}

/** Every option `E2BRuntime` takes; any other is refused, naming the nearest known one. */
export const E2B_OPTION_KEYS = keyList<E2BRuntimeOptions>({
  ...REMOTE_RUNTIME_OPTION_SHAPE,
  apiKey: true,
  workspaceRoot: true,
  listPageSize: true,
  domain: true,
  apiUrl: true,
  sandboxUrl: true,
  template: true,
  lifetimeMs: true,
  allowPublicTraffic: true,
  rateLimitRetries: true,
  commandStateDirectory: true,
});

/** Options after defaults and validation. */
export interface ResolvedOptions extends ResolvedRemote<typeof E2B_DEFAULTS> {
  readonly apiKey: string;
  readonly domain: string;
  readonly apiUrl: string;
  /** Set when one origin serves every sandbox; otherwise per sandbox (see `E2BContext.sandboxUrlFor`). */
  readonly sandboxUrl: string | undefined;
  /** The `sandboxUrl` the caller gave (not a hosted default): port endpoints go through it with routing headers. */
  readonly portProxyUrl: string | undefined;
  readonly template: string;
  readonly allowPublicTraffic: boolean;
  readonly rateLimitRetries: number;
  readonly commandStateDirectory: string;
  /** Beside `commandStateDirectory`: stdin too large to embed in a command is staged here. */
  readonly scratchDirectory: string;
}

/**
 * Default per-call deadlines, used when a call's `OpOptions.timeoutMs` is
 * absent. `launchMs` covers the create (the workspace is made by its first use);
 * `lookupMs` also bounds `startCommand` and `spawn`, which wait only for the start,
 * each `write` and `closeStdin` of a spawned process, and `portEndpoint`.
 */
export const DEFAULT_E2B_TIMEOUTS: OperationTimeouts = remoteTimeouts({ launchMs: 120_000, lifecycleMs: 120_000 });

/**
 * The home of E2B's sandbox user `user`, where envd starts a command given
 * no `cwd`: a command in the workspace root starts here and enters the
 * workspace by its path from here (`workspaceEntry`), making it when missing.
 */
export const E2B_HOME = "/home/user";

/** E2B's hosted domains, which serve every sandbox's envd from `https://sandbox.<domain>`. */
const HOSTED_DOMAINS = ["e2b.app", "e2b.dev", "e2b.pro", "e2b-staging.dev"];

/** The defaults of the remote options E2B shares. */
const E2B_DEFAULTS = {
  timeouts: DEFAULT_E2B_TIMEOUTS,
  network: true,
  workspaceRoot: "/home/user/workspace",
  lifetimeMs: 3_600_000,
  listPageSize: { max: 100, fallback: 100 },
} as const;

/** Validates options and fills defaults. Throws `INVALID_REQUEST`; does no I/O. */
export function resolveOptions(given: E2BRuntimeOptions): ResolvedOptions {
  const read = new OptionReader("E2BRuntime", PROVIDER);
  const options = read.object(given, E2B_OPTION_KEYS);
  const remote = read.remote(options, E2B_DEFAULTS);
  const apiKey = read.requiredText(options.apiKey, "apiKey", "nothing is read from E2B_API_KEY");
  const domain = read.text(options.domain, "domain") ?? "e2b.app";
  if (!/^[A-Za-z0-9.-]+(:\d+)?$/.test(domain))
    throw read.refuse("domain", `${JSON.stringify(domain)} is not a host name`);
  const commandStateDirectory =
    read.absolutePath(options.commandStateDirectory, "commandStateDirectory") ?? "/home/user/.sandport/commands";
  const portProxyUrl = read.url(options.sandboxUrl, "sandboxUrl");
  return {
    ...remote,
    apiKey,
    domain,
    apiUrl: read.url(options.apiUrl, "apiUrl") ?? `https://api.${domain}`,
    sandboxUrl: portProxyUrl ?? (HOSTED_DOMAINS.includes(domain) ? `https://sandbox.${domain}` : undefined),
    portProxyUrl,
    template: read.text(options.template, "template") ?? "base",
    allowPublicTraffic: read.boolean(options.allowPublicTraffic, "allowPublicTraffic") ?? true,
    rateLimitRetries: read.integer(options.rateLimitRetries, "rateLimitRetries", 0, 10) ?? 3,
    commandStateDirectory,
    scratchDirectory: `${commandStateDirectory.slice(0, commandStateDirectory.lastIndexOf("/"))}/stdin`,
  };
}
