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
import type { VercelSdkSource } from "./internal/sdk.js";
import { MAX_NAME_LENGTH, NAME_CHARACTERS } from "./ownership.js";

/**
 * Options of {@link VercelRuntime}. Nothing is read from the
 * environment: every value comes from here. The common and remote options
 * (`owner`, `runBudgetMs`, `maxOutputBytes`, `timeouts`, `network`,
 * `orphanCleanupMs`, `sdk` for `@vercel/sandbox`, `onBackgroundError`) mean
 * what they mean in every runtime; here `network` is sent as `allow-all` or
 * `deny-all`, always, default `true`, and `listPageSize` is 1-50 (the API's
 * own range), default 50.
 */
export interface VercelRuntimeOptions
  extends RemoteRuntimeOptions<VercelSdkSource>,
    Pick<RemoteRuntimeExtras, "listPageSize"> {
  /**
   * A Vercel access token. Required. A JWT-shaped token (three dot-separated
   * parts, as Vercel OIDC tokens are) is refused: the SDK would replace it
   * through an OIDC refresh that reads `VERCEL_OIDC_TOKEN` and the CLI's files.
   */
  readonly token: string;
  /** The team (`team_…`). Required: without it the SDK falls back to ambient credentials. */
  readonly teamId: string;
  /** The project every sandbox is created in (`prj_…`). Required, for the same reason. */
  readonly projectId: string;
  /**
   * The start of every sandbox name this runtime creates, and its ownership
   * boundary: a name outside it is never reattached, stopped, started or
   * destroyed. 1-92 characters of `[A-Za-z0-9._-]`, starting with a letter
   * or digit (a name is at most 128, 36 of them for the launch key).
   * Default `sandport-<owner>-`.
   */
  readonly namePrefix?: string;
  /**
   * Absolute directory inside the sandbox that holds the workspace
   * (`<homeDirectory>/workspace`, made by its first use) and this runtime's
   * records (`<homeDirectory>/.sandport`). Default `/vercel/sandbox`, the
   * directory Vercel starts commands in. A command in the workspace root
   * starts here and makes and enters `./workspace` itself.
   */
  readonly homeDirectory?: string;
  /** Image when `LaunchSpec.template` is absent. Default: Vercel's default image (none is sent). */
  readonly image?: string;
  /** vCPUs of each sandbox (Vercel gives 2048 MB of memory per vCPU), 1-8. Always sent. Default 2. */
  readonly vcpus?: number;
  /** Region to create sandboxes in (`iad1`, `fra1`, ...). Default: none sent (Vercel's `iad1`). */
  readonly region?: string;
  /**
   * Session lifetime in ms when `LaunchSpec.lifetimeMs` is absent: the session
   * stops at this deadline (the files of the persistent sandbox stay). Always
   * sent. Default 1 800 000 (30 minutes).
   */
  readonly lifetimeMs?: number;
  /**
   * The `fetch` every SDK request goes through (the SDK's base URL
   * `https://vercel.com/api` is fixed): a proxy, or an emulator's. Default:
   * the platform's `fetch`.
   */
  readonly fetch?: typeof globalThis.fetch;
}

/** Every option `VercelRuntime` takes; any other is refused, naming the nearest known one. */
export const VERCEL_OPTION_KEYS = keyList<VercelRuntimeOptions>({
  ...REMOTE_RUNTIME_OPTION_SHAPE,
  token: true,
  teamId: true,
  projectId: true,
  namePrefix: true,
  homeDirectory: true,
  image: true,
  vcpus: true,
  region: true,
  lifetimeMs: true,
  listPageSize: true,
  fetch: true,
});

/** Options after defaults and validation. */
export interface ResolvedOptions extends ResolvedRemote<typeof VERCEL_DEFAULTS> {
  readonly token: string;
  readonly teamId: string;
  readonly projectId: string;
  readonly namePrefix: string;
  readonly homeDirectory: string;
  /** `<homeDirectory>/workspace`. */
  readonly workspaceRoot: string;
  /** `<homeDirectory>/.sandport/sessions`: one directory per async command session. */
  readonly sessionDirectory: string;
  /** `<homeDirectory>/.sandport/stdin`: stdin too large to embed in a command is staged here. */
  readonly stdinDirectory: string;
  readonly image: string | undefined;
  readonly vcpus: number;
  readonly region: string | undefined;
  readonly fetch: typeof globalThis.fetch | undefined;
}

/**
 * Default per-call deadlines, used when a call's `OpOptions.timeoutMs` is
 * absent. `launchMs` covers the create (the workspace is made by its first use);
 * `lookupMs` also bounds `startCommand`, `commandStatus`, `commandLogs` and
 * `portEndpoint`.
 */
export const DEFAULT_VERCEL_TIMEOUTS: OperationTimeouts = remoteTimeouts({ launchMs: 120_000, lifecycleMs: 120_000 });

/** Most vCPUs a sandbox can have. */
const MAX_VCPUS = 8;

/**
 * Whether Vercel gives a sandbox this many vCPUs: its create reference takes
 * `resources.vcpus` of 1 or an even number, and a sandbox has at most 8.
 */
export function isVercelVcpuCount(vcpus: number): boolean {
  return Number.isInteger(vcpus) && vcpus >= 1 && vcpus <= MAX_VCPUS && (vcpus === 1 || vcpus % 2 === 0);
}
/** The longest lifetime accepted, 24 hours; the plan's own maximum may be lower (Vercel then refuses the create). */
const MAX_LIFETIME_MS = 24 * 60 * 60 * 1000;
/** Room a name must leave after the prefix for a launch key (a UUID is 36 characters). */
const LAUNCH_KEY_ROOM = 36;

/** The `vcpus` option: 1, 2, 4, 6 or 8 (default 2). */
function readVcpus(read: OptionReader, value: unknown): number {
  const vcpus = read.integer(value, "vcpus", 1, MAX_VCPUS) ?? 2;
  if (!isVercelVcpuCount(vcpus))
    throw read.refuse("vcpus", "must be 1, 2, 4, 6 or 8: Vercel takes 1 or an even number");
  return vcpus;
}

/** The defaults of the remote options Vercel shares. */
const VERCEL_DEFAULTS = {
  timeouts: DEFAULT_VERCEL_TIMEOUTS,
  network: true,
  lifetimeMs: 1_800_000,
  listPageSize: { max: 50, fallback: 50 },
} as const;

/** Validates options and fills defaults. Throws `INVALID_REQUEST`; does no I/O. */
export function resolveOptions(given: VercelRuntimeOptions): ResolvedOptions {
  const read = new OptionReader("VercelRuntime", PROVIDER);
  const options = read.object(given, VERCEL_OPTION_KEYS);
  const remote = read.remote(options, VERCEL_DEFAULTS);
  const token = read.requiredText(options.token, "token", "nothing is read from VERCEL_OIDC_TOKEN or the CLI");
  if (token.split(".").length === 3) {
    throw read.refuse(
      "token",
      "looks like a JWT (a Vercel OIDC token): the SDK would refresh it from VERCEL_OIDC_TOKEN and the CLI's files; pass an access token",
    );
  }
  const namePrefix = read.text(options.namePrefix, "namePrefix") ?? `sandport-${remote.owner}-`;
  const longest = MAX_NAME_LENGTH - LAUNCH_KEY_ROOM;
  if (!/^[A-Za-z0-9]/.test(namePrefix) || !NAME_CHARACTERS.test(namePrefix) || namePrefix.length > longest) {
    throw read.refuse(
      "namePrefix",
      `must be 1-${longest} characters of [A-Za-z0-9._-], starting with a letter or digit (a name leaves ${LAUNCH_KEY_ROOM} for the launch key)`,
    );
  }
  const homeDirectory = read.absolutePath(options.homeDirectory, "homeDirectory") ?? "/vercel/sandbox";
  const base = homeDirectory === "/" ? "" : homeDirectory;
  if (remote.lifetimeMs > MAX_LIFETIME_MS)
    throw read.refuse("lifetimeMs", `must be at most ${MAX_LIFETIME_MS} (24 hours)`);
  return {
    ...remote,
    token,
    teamId: read.requiredText(options.teamId, "teamId", "nothing is read from the environment or .vercel/project.json"),
    projectId: read.requiredText(
      options.projectId,
      "projectId",
      "nothing is read from the environment or .vercel/project.json",
    ),
    namePrefix,
    homeDirectory,
    workspaceRoot: `${base}/workspace`,
    sessionDirectory: `${base}/.sandport/sessions`,
    stdinDirectory: `${base}/.sandport/stdin`,
    image: read.text(options.image, "image"),
    vcpus: readVcpus(read, options.vcpus),
    region: read.text(options.region, "region"),
    fetch: read.callback(options.fetch, "fetch"),
  };
}

/** @deprecated Renamed {@link VercelRuntimeOptions}, as every provider's `<P>RuntimeOptions`; this alias will be removed. */
export type VercelSandboxRuntimeOptions = VercelRuntimeOptions;

/** @deprecated Renamed {@link DEFAULT_VERCEL_TIMEOUTS}; this alias will be removed. */
export const DEFAULT_VERCEL_SANDBOX_TIMEOUTS = DEFAULT_VERCEL_TIMEOUTS;
