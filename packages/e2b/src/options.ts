import { keyList, type OperationTimeouts, type SandportError } from "@sandport/core";
import {
  COMMON_RUNTIME_OPTION_SHAPE,
  type CommonRuntimeOptions,
  OptionReader,
  type ResolvedCommonOptions,
} from "@sandport/core/adapter";
import { PROVIDER } from "./handle.js";
import type { E2BSdkSource } from "./internal/sdk.js";

/**
 * Options of {@link E2BRuntime}. Nothing is read from the environment: every
 * value comes from here. The common options (`owner`, `runBudgetMs`,
 * `maxOutputBytes`, `timeouts`) mean what they mean in every runtime.
 */
export interface E2BRuntimeOptions extends CommonRuntimeOptions {
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
  /** Absolute workspace directory inside the sandbox; created at launch. Default `/home/user/workspace`. */
  readonly workspaceRoot?: string;
  /**
   * Sandbox lifetime in ms when `LaunchSpec.lifetimeMs` is absent. Always sent. Default 3 600 000 (1 hour).
   * Connecting to a sandbox this instance did not launch (first use of a reattached handle) and
   * `start` also send it, which extends a running sandbox's remaining life to at least this much.
   */
  readonly lifetimeMs?: number;
  /** Outbound network when `LaunchSpec.network` is absent. Always sent. Default `true` (E2B's own default). */
  readonly network?: boolean;
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
  /** Page size of the list API, 1-100 (E2B answers 400 above 100). Default 100. */
  readonly listPageSize?: number;
  /**
   * Absolute directory inside the sandbox where async commands keep their
   * output and exit records. Default `/home/user/.sandport/commands` (beside,
   * not inside, the default workspace). Stdin too large to embed in a command
   * is staged in `stdin` beside it.
   */
  readonly commandStateDirectory?: string;
  /**
   * How long, in ms, the background cleanup of an abandoned launch (a create
   * that outlived its caller's abort or deadline) may take in all: waiting for
   * the create, searching by launch key, destroying. Default 120 000.
   */
  readonly orphanCleanupMs?: number;
  /** Replaces loading the `e2b` package: a module, or a function that loads one. For tests and bundlers. */
  readonly sdk?: E2BSdkSource;
  /**
   * Called once for each failure of background cleanup (destroying what an
   * abandoned launch created). The failure is also kept for `settle()`.
   */
  readonly onBackgroundError?: (error: SandportError) => void;
}

/** Every option `E2BRuntime` takes; any other is refused, naming the nearest known one. */
export const E2B_OPTION_KEYS = keyList<E2BRuntimeOptions>({
  ...COMMON_RUNTIME_OPTION_SHAPE,
  apiKey: true,
  domain: true,
  apiUrl: true,
  sandboxUrl: true,
  template: true,
  workspaceRoot: true,
  lifetimeMs: true,
  network: true,
  allowPublicTraffic: true,
  rateLimitRetries: true,
  listPageSize: true,
  commandStateDirectory: true,
  orphanCleanupMs: true,
  sdk: true,
  onBackgroundError: true,
});

/** Options after defaults and validation. */
export interface ResolvedOptions extends ResolvedCommonOptions {
  readonly apiKey: string;
  readonly domain: string;
  readonly apiUrl: string;
  /** Set when one origin serves every sandbox; otherwise per sandbox (see `E2BContext.sandboxUrlFor`). */
  readonly sandboxUrl: string | undefined;
  /** The `sandboxUrl` the caller gave (not a hosted default): port endpoints go through it with routing headers. */
  readonly portProxyUrl: string | undefined;
  readonly template: string;
  readonly workspaceRoot: string;
  readonly lifetimeMs: number;
  readonly network: boolean;
  readonly allowPublicTraffic: boolean;
  readonly rateLimitRetries: number;
  readonly listPageSize: number;
  readonly commandStateDirectory: string;
  /** Beside `commandStateDirectory`: stdin too large to embed in a command is staged here. */
  readonly scratchDirectory: string;
  readonly orphanCleanupMs: number;
}

/**
 * Default per-call deadlines, used when a call's `OpOptions.timeoutMs` is
 * absent. `launchMs` covers the create and creating the workspace directory;
 * `lookupMs` also bounds `startCommand` and `spawn`, which wait only for the start,
 * each `write` and `closeStdin` of a spawned process, and `portEndpoint`.
 */
export const DEFAULT_E2B_TIMEOUTS: OperationTimeouts = Object.freeze({
  launchMs: 120_000,
  lookupMs: 60_000,
  fileMs: 120_000,
  destroyMs: 60_000,
  lifecycleMs: 120_000,
  execGraceMs: 30_000,
});

/** E2B's hosted domains, which serve every sandbox's envd from `https://sandbox.<domain>`. */
const HOSTED_DOMAINS = ["e2b.app", "e2b.dev", "e2b.pro", "e2b-staging.dev"];

/** Validates options and fills defaults. Throws `INVALID_REQUEST`; does no I/O. */
export function resolveOptions(given: E2BRuntimeOptions): ResolvedOptions {
  const read = new OptionReader("E2BRuntime", PROVIDER);
  const options = read.object(given, E2B_OPTION_KEYS);
  const common = read.common(options, {
    runBudgetMs: 600_000,
    maxOutputBytes: 16 * 1024 * 1024,
    timeouts: DEFAULT_E2B_TIMEOUTS,
  });
  const apiKey = read.requiredText(options.apiKey, "apiKey", "nothing is read from E2B_API_KEY");
  const domain = read.text(options.domain, "domain") ?? "e2b.app";
  if (!/^[A-Za-z0-9.-]+(:\d+)?$/.test(domain))
    throw read.refuse("domain", `${JSON.stringify(domain)} is not a host name`);
  const commandStateDirectory =
    read.absolutePath(options.commandStateDirectory, "commandStateDirectory") ?? "/home/user/.sandport/commands";
  read.callback(options.onBackgroundError, "onBackgroundError");
  const portProxyUrl = read.url(options.sandboxUrl, "sandboxUrl");
  return {
    ...common,
    apiKey,
    domain,
    apiUrl: read.url(options.apiUrl, "apiUrl") ?? `https://api.${domain}`,
    sandboxUrl: portProxyUrl ?? (HOSTED_DOMAINS.includes(domain) ? `https://sandbox.${domain}` : undefined),
    portProxyUrl,
    template: read.text(options.template, "template") ?? "base",
    workspaceRoot: read.absolutePath(options.workspaceRoot, "workspaceRoot") ?? "/home/user/workspace",
    lifetimeMs: read.durationMs(options.lifetimeMs, "lifetimeMs") ?? 3_600_000,
    network: read.boolean(options.network, "network") ?? true,
    allowPublicTraffic: read.boolean(options.allowPublicTraffic, "allowPublicTraffic") ?? true,
    rateLimitRetries: read.integer(options.rateLimitRetries, "rateLimitRetries", 0, 10) ?? 3,
    listPageSize: read.integer(options.listPageSize, "listPageSize", 1, 100) ?? 100,
    commandStateDirectory,
    scratchDirectory: `${commandStateDirectory.slice(0, commandStateDirectory.lastIndexOf("/"))}/stdin`,
    orphanCleanupMs: read.durationMs(options.orphanCleanupMs, "orphanCleanupMs") ?? 120_000,
  };
}
