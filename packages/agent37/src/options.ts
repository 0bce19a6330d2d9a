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
import type { InstanceAuthHeader } from "./internal/sdk.js";

/**
 * Options of {@link Agent37Runtime}. Nothing is read from the environment or
 * a file: every value comes from here. The common and remote options
 * (`owner`, `runBudgetMs`, `maxOutputBytes`, `timeouts`, `network`,
 * `orphanCleanupMs`, `onBackgroundError`) mean what they mean in every
 * runtime; there is no `sdk` option (Agent37 publishes no library: pass
 * `fetch`). `network` can only be `true` (instances have open egress).
 */
export interface Agent37RuntimeOptions
  extends Omit<RemoteRuntimeOptions<never>, "sdk">,
    Pick<RemoteRuntimeExtras, "workspaceRoot"> {
  /** Workspace key (`sk_live_…`). Required; sent as `Authorization: Bearer` to the hosting API. */
  readonly apiKey: string;
  /** Hosting API origin, without `/v1`. Default `https://api.agent37.com`. */
  readonly baseUrl?: string;
  /** Transport for every request. Default: the global `fetch`, looked up at each call. */
  readonly fetch?: typeof fetch;
  /**
   * The header that carries the key on instance URLs: `"authorization"`
   * (`Bearer`, what Agent37's instance-URL docs say; the default) or
   * `"x-agent37-key"` (what other clients send). Never a query parameter.
   */
  readonly instanceAuth?: InstanceAuthHeader;
  /** Template launched when `LaunchSpec.template` is absent. Default `agent37-hermes`. */
  readonly template?: string;
  /**
   * The instance user's `$HOME` (`/home/node` on the default template):
   * commands start there, file paths are absolute under it. Default `/home/node`.
   */
  readonly homeDirectory?: string;
  /** Absolute workspace directory, under `homeDirectory`; made by its first use. Default `<homeDirectory>/workspace`. */
  readonly workspaceRoot?: string;
  /** Absolute directory under `homeDirectory`, outside the workspace, for staged stdin. Default `<homeDirectory>/.sandport`. */
  readonly stateDirectory?: string;
  /**
   * The most instances one list may hold. `GET /v1/instances` has no
   * pagination and no metadata filter, so ownership is filtered here over
   * the whole list; a longer list is refused rather than half read. Default 1000.
   */
  readonly maxListedInstances?: number;
}

/** The remote options every runtime shares, but `sdk`: Agent37 has no SDK to inject. */
const { sdk: _noSdk, ...SHARED_OPTION_SHAPE } = REMOTE_RUNTIME_OPTION_SHAPE;

/** Every option `Agent37Runtime` takes; any other (`sdk` included) is refused, naming the nearest known one. */
export const AGENT37_OPTION_KEYS = keyList<Agent37RuntimeOptions>({
  ...SHARED_OPTION_SHAPE,
  apiKey: true,
  baseUrl: true,
  fetch: true,
  instanceAuth: true,
  template: true,
  homeDirectory: true,
  workspaceRoot: true,
  stateDirectory: true,
  maxListedInstances: true,
});

/** Options after defaults and validation. */
export type ResolvedOptions = ResolvedRemote<typeof AGENT37_DEFAULTS> &
  Required<Omit<Agent37RuntimeOptions, keyof RemoteRuntimeOptions<unknown> | "workspaceRoot">>;

/** Default per-call deadlines; `launchMs` covers the synchronous create (it answers once running). */
export const DEFAULT_AGENT37_TIMEOUTS: OperationTimeouts = remoteTimeouts({ launchMs: 300_000, lifecycleMs: 120_000 });

/** The longest one exec runs before the service fails it (`provisioning_failed`); some pages say 300 s. */
export const EXEC_CAP_MS = 280_000;
/**
 * The default output cap: below the service's own cut (512 KB, per stream
 * or combined by which page you read). A larger cap is taken; output the
 * service cut is then `truncated` all the same.
 */
export const DEFAULT_OUTPUT_BYTES = 500_000;

const AGENT37_DEFAULTS = {
  runBudgetMs: EXEC_CAP_MS,
  maxOutputBytes: DEFAULT_OUTPUT_BYTES,
  timeouts: DEFAULT_AGENT37_TIMEOUTS,
  network: true,
  workspaceRoot: "/home/node/workspace",
} as const;

/** The global fetch, looked up at each call (a test may replace it after construction). */
const globalFetch: typeof fetch = (input, init) => globalThis.fetch(input, init);

/** Validates options and fills defaults. Throws `INVALID_REQUEST`; does no I/O. */
export function resolveOptions(given: Agent37RuntimeOptions): ResolvedOptions {
  const read = new OptionReader("Agent37Runtime", PROVIDER);
  const options = read.object(given, AGENT37_OPTION_KEYS);
  const homeDirectory = read.absolutePath(options.homeDirectory, "homeDirectory") ?? "/home/node";
  const common = read.remote(options, {
    ...AGENT37_DEFAULTS,
    workspaceRoot: posix.join(homeDirectory, "workspace"),
  });
  if (common.runBudgetMs > EXEC_CAP_MS) {
    throw read.refuse("runBudgetMs", `must be at most ${EXEC_CAP_MS} (the longest one Agent37 exec runs)`);
  }
  if (!common.network) throw read.refuse("network", "must be true: Agent37 instances have open egress");
  const apiKey = read.requiredText(options.apiKey, "apiKey", "nothing is read from the environment");
  read.callback(options.fetch, "fetch");
  const instanceAuth = read.text(options.instanceAuth, "instanceAuth") ?? "authorization";
  if (instanceAuth !== "authorization" && instanceAuth !== "x-agent37-key") {
    throw read.refuse("instanceAuth", 'must be "authorization" or "x-agent37-key"');
  }
  const stateDirectory =
    read.absolutePath(options.stateDirectory, "stateDirectory") ?? posix.join(homeDirectory, ".sandport");
  for (const [field, path] of [
    ["workspaceRoot", common.workspaceRoot],
    ["stateDirectory", stateDirectory],
  ] as const) {
    if (!isWithin(path, homeDirectory) || path === homeDirectory) {
      throw read.refuse(field, `must lie inside homeDirectory (${homeDirectory})`);
    }
  }
  if (isWithin(stateDirectory, common.workspaceRoot) || isWithin(common.workspaceRoot, stateDirectory)) {
    throw read.refuse("stateDirectory", "must lie outside the workspace (and the workspace outside it)");
  }
  return {
    ...common,
    apiKey,
    baseUrl: read.url(options.baseUrl, "baseUrl") ?? "https://api.agent37.com",
    fetch: options.fetch ?? globalFetch,
    instanceAuth,
    template: read.text(options.template, "template") ?? "agent37-hermes",
    homeDirectory,
    stateDirectory,
    maxListedInstances: read.integer(options.maxListedInstances, "maxListedInstances", 1, 100_000) ?? 1000,
  };
}

/**
 * Where `absolute` (an instance path under the home directory) is from
 * `$HOME`, where every command starts: `.` or `./…`, never `-`.
 */
export function fromHome(options: Pick<ResolvedOptions, "homeDirectory">, absolute: string): string {
  const relative = posix.relative(options.homeDirectory, absolute);
  return relative === "" ? "." : `./${relative}`;
}

function isWithin(path: string, directory: string): boolean {
  return path === directory || path.startsWith(directory === "/" ? "/" : `${directory}/`);
}
