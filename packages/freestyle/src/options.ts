import { posix } from "node:path";
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
import type { FreestyleSdkSource } from "./internal/sdk.js";

/**
 * How long a VM is kept around besides its lifetime, in seconds; `null` (the
 * default) is "never", sent as the API's `-1`. Every field is always sent.
 */
export interface FreestylePersistence {
  /** Delete a VM once it has not been running for this long (`0`: as soon as it stops or pauses). */
  readonly autoDeleteSeconds?: number | null;
  /** Pause a VM after this long without network traffic (commands sent through the API may not count). */
  readonly idleTimeoutSeconds?: number | null;
  /** Pause a VM once one run has lasted this long. */
  readonly maxRunSeconds?: number | null;
}

/**
 * Options of {@link FreestyleRuntime}. Nothing is read from the environment:
 * every value comes from here. The common and remote options (`owner`,
 * `runBudgetMs`, `maxOutputBytes`, `timeouts`, `network`, `orphanCleanupMs`,
 * `sdk` for the `freestyle` package, `onBackgroundError`) mean what they mean
 * in every runtime; here `network` defaults to `false`, which creates the VM
 * with no firewall rule, and `listPageSize` is 1-1000, default 100.
 */
export interface FreestyleRuntimeOptions
  extends RemoteRuntimeOptions<FreestyleSdkSource>,
    Pick<RemoteRuntimeExtras, "listPageSize"> {
  /** Freestyle API key. Required and never empty (the SDK would fall back to `FREESTYLE_API_KEY`). */
  readonly apiKey: string;
  /** API origin, without the `/v5` the SDK adds to every path. Default `https://api.freestyle.sh`. */
  readonly baseUrl?: string;
  /** Transport for every request. Default: the global `fetch`, looked up at each call. */
  readonly fetch?: typeof fetch;
  /** Guest Linux user every command runs as (always sent). Default `root`. */
  readonly linuxUser?: string;
  /**
   * Home directory of `linuxUser`: where the API starts every command, and
   * what the paths inside commands are relative to. Default `/root` for
   * `root`, else `/home/<linuxUser>`.
   */
  readonly homeDirectory?: string;
  /** Absolute workspace directory inside the VM; made by its first use. Default `<homeDirectory>/workspace`. */
  readonly workspaceRoot?: string;
  /**
   * Absolute directory, outside the workspace, for the launch env file and
   * stdin too large for the API. Default `<homeDirectory>/.sandport`.
   */
  readonly stateDirectory?: string;
  /** Snapshot launched when `LaunchSpec.template` is absent. Default `freestyle/ubuntu`. */
  readonly snapshot?: string;
  /**
   * Every VM's slug starts with `<namePrefix>-`; a VM outside it is foreign.
   * 1-30 characters of `[a-z0-9-]`, no leading, trailing or doubled hyphen. Default `sandport`.
   */
  readonly namePrefix?: string;
  /** VM lifetime in ms when `LaunchSpec.lifetimeMs` is absent, sent as `ttlSeconds` (rounded up). Default 3 600 000. */
  readonly lifetimeMs?: number;
  /** What else ends or pauses a VM; see {@link FreestylePersistence}. */
  readonly persistence?: FreestylePersistence;
}

/** Every option `FreestyleRuntime` takes; any other is refused, naming the nearest known one. */
export const FREESTYLE_OPTION_KEYS = keyList<FreestyleRuntimeOptions>({
  ...REMOTE_RUNTIME_OPTION_SHAPE,
  apiKey: true,
  baseUrl: true,
  fetch: true,
  linuxUser: true,
  homeDirectory: true,
  workspaceRoot: true,
  stateDirectory: true,
  snapshot: true,
  namePrefix: true,
  lifetimeMs: true,
  persistence: true,
  listPageSize: true,
});

/** Options after defaults and validation: every option set, persistence as the API takes it (seconds, `-1` for none). */
export type ResolvedOptions = ResolvedRemote<typeof FREESTYLE_DEFAULTS> &
  Required<Omit<FreestyleRuntimeOptions, keyof RemoteRuntimeOptions<unknown> | "persistence">> & {
    readonly persistence: Readonly<Record<keyof FreestylePersistence, number>>;
  };

/**
 * Default per-call deadlines, used when a call's `OpOptions.timeoutMs` is
 * absent. `launchMs` covers the create and, with a launch env, its setup command.
 */
export const DEFAULT_FREESTYLE_TIMEOUTS: OperationTimeouts = remoteTimeouts({
  launchMs: 180_000,
  lifecycleMs: 120_000,
});

/** The longest command timeout the API takes (24 h). */
export const MAX_EXEC_TIMEOUT_MS = 86_400_000;
/** Longest metadata value Freestyle stores: the owner is one. */
const MAX_METADATA_VALUE = 63;
const NAME_PREFIX = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const LINUX_USER = /^[a-z_][a-z0-9_-]{0,31}$/;
/** The global fetch, looked up at each call (a test may replace it after construction). */
const globalFetch: typeof fetch = (input, init) => globalThis.fetch(input, init);

/** The defaults of the remote options Freestyle shares. */
const FREESTYLE_DEFAULTS = {
  runBudgetMs: 300_000,
  maxOutputBytes: 4 * 1024 * 1024,
  timeouts: DEFAULT_FREESTYLE_TIMEOUTS,
  network: false,
  lifetimeMs: 3_600_000,
  listPageSize: { max: 1000, fallback: 100 },
} as const;

/** Validates options and fills defaults. Throws `INVALID_REQUEST`; does no I/O. */
export function resolveOptions(given: FreestyleRuntimeOptions): ResolvedOptions {
  const read = new OptionReader("FreestyleRuntime", PROVIDER);
  const options = read.object(given, FREESTYLE_OPTION_KEYS);
  const common = read.remote(options, FREESTYLE_DEFAULTS);
  if (common.owner.length > MAX_METADATA_VALUE) {
    throw read.refuse("owner", `must be at most ${MAX_METADATA_VALUE} characters (Freestyle's metadata values)`);
  }
  if (common.runBudgetMs > MAX_EXEC_TIMEOUT_MS) {
    throw read.refuse("runBudgetMs", `must be at most ${MAX_EXEC_TIMEOUT_MS} (Freestyle's longest command timeout)`);
  }
  const apiKey = read.requiredText(options.apiKey, "apiKey", "nothing is read from FREESTYLE_API_KEY");
  read.callback(options.fetch, "fetch");
  const linuxUser = read.text(options.linuxUser, "linuxUser") ?? "root";
  if (!LINUX_USER.test(linuxUser)) throw read.refuse("linuxUser", "is not a Linux user name");
  const namePrefix = read.text(options.namePrefix, "namePrefix") ?? "sandport";
  if (namePrefix.length > 30 || !NAME_PREFIX.test(namePrefix)) {
    throw read.refuse(
      "namePrefix",
      "must be 1-30 characters of [a-z0-9-] without leading, trailing or doubled hyphens",
    );
  }
  const homeDirectory =
    read.absolutePath(options.homeDirectory, "homeDirectory") ??
    (linuxUser === "root" ? "/root" : `/home/${linuxUser}`);
  const workspaceRoot =
    read.absolutePath(options.workspaceRoot, "workspaceRoot") ?? posix.join(homeDirectory, "workspace");
  const stateDirectory =
    read.absolutePath(options.stateDirectory, "stateDirectory") ?? posix.join(homeDirectory, ".sandport");
  if (workspaceRoot === "/") throw read.refuse("workspaceRoot", "must not be /");
  if (isWithin(stateDirectory, workspaceRoot) || isWithin(workspaceRoot, stateDirectory)) {
    throw read.refuse("stateDirectory", "must lie outside the workspace (and the workspace outside it)");
  }
  return {
    ...common,
    apiKey,
    baseUrl: read.url(options.baseUrl, "baseUrl") ?? "https://api.freestyle.sh",
    fetch: options.fetch ?? globalFetch,
    linuxUser,
    homeDirectory,
    workspaceRoot,
    stateDirectory,
    snapshot: read.text(options.snapshot, "snapshot") ?? "freestyle/ubuntu",
    namePrefix,
    persistence: readPersistence(read, options.persistence),
  };
}

function readPersistence(read: OptionReader, given: FreestylePersistence | undefined): ResolvedOptions["persistence"] {
  if (given !== undefined && (typeof given !== "object" || given === null)) {
    throw read.refuse("persistence", "must be an object");
  }
  if (given !== undefined) {
    const keys = keyList<FreestylePersistence>({
      autoDeleteSeconds: true,
      idleTimeoutSeconds: true,
      maxRunSeconds: true,
    });
    read.known(given, keys, "persistence.");
  }
  const seconds = (field: keyof FreestylePersistence) => {
    const value = given?.[field];
    return value === null ? -1 : (read.integer(value, `persistence.${field}`, 0, 31_536_000) ?? -1);
  };
  return {
    autoDeleteSeconds: seconds("autoDeleteSeconds"),
    idleTimeoutSeconds: seconds("idleTimeoutSeconds"),
    maxRunSeconds: seconds("maxRunSeconds"),
  };
}

/**
 * Where `absolute` (a VM path) is from the home directory, where the API
 * starts every command: the form every path inside a command takes, so it
 * holds wherever the VM's home is mounted. Starts with `./` or `..`, never `-`.
 */
export function fromHome(options: Pick<ResolvedOptions, "homeDirectory">, absolute: string): string {
  const relative = posix.relative(options.homeDirectory, absolute);
  if (relative === "") return ".";
  return relative.startsWith("..") ? relative : `./${relative}`;
}

function isWithin(path: string, directory: string): boolean {
  return path === directory || path.startsWith(directory === "/" ? "/" : `${directory}/`);
}
