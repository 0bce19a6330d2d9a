import { invalidRequest, normalizeWorkspacePath, validateMaxOutputBytes, validateTimeoutMs } from "@sandport/core";
import type { E2BConnectionFields, E2BSdkModule } from "./internal/sdk-types.js";

/** Provider name used in handles and errors. */
export const PROVIDER = "e2b";

/** Per-operation deadlines in ms, used when a call's `OpOptions.timeoutMs` is absent. */
export interface E2BTimeouts {
  /** One `launch`: the create request plus creating the workspace directory. Default 120 000. */
  readonly launchMs: number;
  /** One `getById`, `findByLabels` (all pages together), `commandStatus` or `commandLogs`. Default 60 000. */
  readonly lookupMs: number;
  /** One file operation (`writeFiles`, `readFile`, `listDir`, `stat`, `mkdir`, `remove`). Default 120 000. */
  readonly fileMs: number;
  /** One `destroy`, verification included. Default 60 000. */
  readonly destroyMs: number;
  /** One `stop` or `start`. Default 120 000. */
  readonly lifecycleMs: number;
  /**
   * Added to a command's own timeout to give the `exec`/`execStream` call
   * deadline, so the command's kill always comes first. Default 30 000.
   */
  readonly execGraceMs: number;
  /**
   * How long a create that outlived its caller (abort or deadline) may still
   * run before it is given up, and how long its cleanup may take. Default 120 000.
   */
  readonly orphanCleanupMs: number;
}

/** Options of {@link E2BRuntime}. Nothing is read from the environment: every value comes from here. */
export interface E2BRuntimeOptions {
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
   */
  readonly sandboxUrl?: string;
  /** Template launched when `LaunchSpec.template` is absent. Default `base`. */
  readonly template?: string;
  /**
   * Ownership marker stored as the `sandport.owner` metadata value. Only
   * sandboxes carrying it are listed, reattached or destroyed. Default `sandport`.
   */
  readonly owner?: string;
  /** Absolute workspace directory inside the sandbox; created at launch. Default `/home/user/workspace`. */
  readonly workspaceRoot?: string;
  /**
   * Sandbox lifetime in ms when `LaunchSpec.lifetimeMs` is absent. Always sent. Default 3 600 000 (1 hour).
   * Connecting to a sandbox this instance did not launch (first use of a reattached handle) and
   * `start` also send it, which extends a running sandbox's remaining life to at least this much.
   */
  readonly lifetimeMs?: number;
  /** Command timeout in ms when `ExecRequest.timeoutMs` is absent. Always sent. Default 600 000 (10 minutes). */
  readonly runBudgetMs?: number;
  /** Output cap in bytes (stdout + stderr) when `ExecRequest.maxOutputBytes` is absent. Default 16 MiB. */
  readonly maxOutputBytes?: number;
  /** Outbound network when `LaunchSpec.network` is absent. Always sent. Default `true` (E2B's own default). */
  readonly network?: boolean;
  /** Per-operation deadlines; see {@link E2BTimeouts}. */
  readonly timeouts?: Partial<E2BTimeouts>;
  /** How often the SDK itself retries a control-plane 429 that carries `Retry-After`. Default 3. */
  readonly rateLimitRetries?: number;
  /** Page size of the list API. Default 100. */
  readonly listPageSize?: number;
  /**
   * Absolute directory inside the sandbox where async commands keep their
   * output and exit records. Default `/home/user/.sandport/commands` (beside,
   * not inside, the default workspace).
   */
  readonly commandStateDirectory?: string;
  /** Replaces loading the `e2b` package: a module, or a function that loads one. For tests and bundlers. */
  readonly sdk?: E2BSdkModule | (() => Promise<E2BSdkModule>);
  /**
   * Called when background cleanup (of a sandbox created after its launch was
   * abandoned) fails. The failure is also kept for {@link E2BRuntime.settle}.
   */
  readonly onBackgroundError?: (error: Error) => void;
}

/** Options after defaults and validation. */
export interface ResolvedOptions {
  readonly apiKey: string;
  readonly domain: string;
  readonly apiUrl: string;
  /** Set when one origin serves every sandbox; otherwise per sandbox, see {@link sandboxUrlFor}. */
  readonly sandboxUrl: string | undefined;
  readonly template: string;
  readonly owner: string;
  readonly workspaceRoot: string;
  readonly lifetimeMs: number;
  readonly runBudgetMs: number;
  readonly maxOutputBytes: number;
  readonly network: boolean;
  readonly timeouts: E2BTimeouts;
  readonly rateLimitRetries: number;
  readonly listPageSize: number;
  readonly commandStateDirectory: string;
  /** Beside `commandStateDirectory`: stdin too large to embed in a command is staged here. */
  readonly scratchDirectory: string;
}

/** Default deadlines. */
export const DEFAULT_E2B_TIMEOUTS: E2BTimeouts = {
  launchMs: 120_000,
  lookupMs: 60_000,
  fileMs: 120_000,
  destroyMs: 60_000,
  lifecycleMs: 120_000,
  execGraceMs: 30_000,
  orphanCleanupMs: 120_000,
};

/** E2B's hosted domains, which serve every sandbox's envd from `https://sandbox.<domain>`. */
const HOSTED_DOMAINS = ["e2b.app", "e2b.dev", "e2b.pro", "e2b-staging.dev"];
/** Port of envd inside every sandbox. */
const ENVD_PORT = 49983;

/** Validates options and fills defaults. Throws `INVALID_REQUEST`; does no I/O. */
export function resolveOptions(options: E2BRuntimeOptions): ResolvedOptions {
  if (typeof options !== "object" || options === null) throw refuse("options must be an object");
  const apiKey = options.apiKey;
  if (typeof apiKey !== "string" || apiKey.trim() === "") {
    throw refuse("apiKey is required (nothing is read from E2B_API_KEY)");
  }
  const domain = text(options.domain, "domain") ?? "e2b.app";
  if (!/^[A-Za-z0-9.-]+(:\d+)?$/.test(domain)) throw refuse(`domain ${JSON.stringify(domain)} is not a host name`);
  const apiUrl = url(options.apiUrl, "apiUrl") ?? `https://api.${domain}`;
  const sandboxUrl =
    url(options.sandboxUrl, "sandboxUrl") ??
    (HOSTED_DOMAINS.includes(domain) ? `https://sandbox.${domain}` : undefined);
  const owner = text(options.owner, "owner") ?? "sandport";
  if (owner.length > 256) throw refuse("owner must be at most 256 characters");
  const workspaceRoot = absoluteDirectory(options.workspaceRoot, "workspaceRoot") ?? "/home/user/workspace";
  const commandStateDirectory =
    absoluteDirectory(options.commandStateDirectory, "commandStateDirectory") ?? "/home/user/.sandport/commands";
  if (options.network !== undefined && typeof options.network !== "boolean") throw refuse("network must be a boolean");
  const timeouts: Record<string, number> = { ...DEFAULT_E2B_TIMEOUTS };
  for (const [name, value] of Object.entries(options.timeouts ?? {})) {
    if (!(name in DEFAULT_E2B_TIMEOUTS)) throw refuse(`timeouts.${name} is not a known deadline`);
    timeouts[name] = validateTimeoutMs(value, `timeouts.${name}`, PROVIDER) as number;
  }
  const rateLimitRetries = options.rateLimitRetries ?? 3;
  if (!Number.isInteger(rateLimitRetries) || rateLimitRetries < 0 || rateLimitRetries > 10) {
    throw refuse("rateLimitRetries must be an integer from 0 to 10");
  }
  const listPageSize = options.listPageSize ?? 100;
  if (!Number.isInteger(listPageSize) || listPageSize < 1 || listPageSize > 1000) {
    throw refuse("listPageSize must be an integer from 1 to 1000");
  }
  return {
    apiKey,
    domain,
    apiUrl,
    sandboxUrl,
    template: text(options.template, "template") ?? "base",
    owner,
    workspaceRoot,
    lifetimeMs: validateTimeoutMs(options.lifetimeMs, "lifetimeMs", PROVIDER) ?? 3_600_000,
    runBudgetMs: validateTimeoutMs(options.runBudgetMs, "runBudgetMs", PROVIDER) ?? 600_000,
    maxOutputBytes: validateMaxOutputBytes(options.maxOutputBytes, "maxOutputBytes", PROVIDER) ?? 16 * 1024 * 1024,
    network: options.network ?? true,
    timeouts: timeouts as unknown as E2BTimeouts,
    rateLimitRetries,
    listPageSize,
    commandStateDirectory,
    scratchDirectory: `${commandStateDirectory.slice(0, commandStateDirectory.lastIndexOf("/")) || ""}/stdin`,
  };
}

/**
 * The connection fields for one SDK call: every value the SDK would otherwise
 * read from `E2B_*` variables, explicitly.
 */
export function connectionFields(
  options: ResolvedOptions,
  call: { readonly requestTimeoutMs: number; readonly signal?: AbortSignal; readonly sandboxUrl?: string },
): E2BConnectionFields {
  const sandboxUrl = call.sandboxUrl ?? options.sandboxUrl;
  return {
    apiKey: options.apiKey,
    domain: options.domain,
    apiUrl: options.apiUrl,
    ...(sandboxUrl === undefined ? {} : { sandboxUrl }),
    debug: false,
    requestTimeoutMs: call.requestTimeoutMs,
    retries: options.rateLimitRetries,
    ...(call.signal === undefined ? {} : { signal: call.signal }),
  };
}

/** The envd base URL of one sandbox: the configured origin, else its per-sandbox host. */
export function sandboxUrlFor(options: ResolvedOptions, sandboxId: string): string {
  return options.sandboxUrl ?? `https://${ENVD_PORT}-${sandboxId}.${options.domain}`;
}

function refuse(message: string) {
  return invalidRequest(`E2BRuntime: ${message}`, {}, PROVIDER);
}

function text(value: unknown, field: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value.trim() === "") throw refuse(`${field} must be a non-empty string`);
  return value;
}

function url(value: unknown, field: string): string | undefined {
  const given = text(value, field);
  if (given === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(given);
  } catch {
    throw refuse(`${field} ${JSON.stringify(given)} is not a URL`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw refuse(`${field} must be http(s)`);
  return given.replace(/\/+$/, "");
}

function absoluteDirectory(value: unknown, field: string): string | undefined {
  const given = text(value, field);
  if (given === undefined) return undefined;
  if (!given.startsWith("/")) throw refuse(`${field} must be an absolute path`);
  // Reuse the workspace-path rules (no '..', control characters, ...) on the part below '/'.
  const relative = normalizeWorkspacePath(given.slice(1), { allowRoot: false, field, provider: PROVIDER });
  return `/${relative}`;
}
