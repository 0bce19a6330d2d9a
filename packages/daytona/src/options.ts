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
import type { DaytonaSdkSource } from "./internal/sdk.js";
import type { DaytonaVolumeMount } from "./internal/sdk-types.js";

/** CPU, memory and disk of a sandbox built from an image. */
export interface DaytonaResources {
  /** vCPUs, a whole number. */
  readonly cpu?: number;
  /** Memory in GiB, a whole number. */
  readonly memoryGiB?: number;
  /** Disk in GiB, a whole number. */
  readonly diskGiB?: number;
}

/** A Daytona volume to mount into every sandbox. */
export interface DaytonaVolume {
  /** Id or name of an existing volume. */
  readonly volumeId: string;
  /** Absolute path inside the sandbox. */
  readonly mountPath: string;
  /** A directory inside the volume to mount instead of its root. */
  readonly subpath?: string;
}

/**
 * Options of {@link DaytonaRuntime}. Nothing is read from the environment or
 * from `.env` files: every value comes from here, and every SDK client gets
 * the credentials, the API URL and the target together, so the SDK's own
 * fallback to `DAYTONA_*` variables never fires. The common and remote options
 * (`owner`, `runBudgetMs`, `maxOutputBytes`, `timeouts`, `network`,
 * `orphanCleanupMs`, `sdk`, `onBackgroundError`) mean what they mean in every
 * runtime; here `network` is always sent (`false` sends `networkBlockAll`),
 * default `true`, `workspaceRoot` defaults to `/home/daytona/workspace` and
 * `listPageSize` is 1-200, default 100.
 */
export interface DaytonaRuntimeOptions
  extends RemoteRuntimeOptions<DaytonaSdkSource>,
    Pick<RemoteRuntimeExtras, "workspaceRoot" | "listPageSize"> {
  /** API key. Required unless `jwtToken` and `organizationId` are given instead (never both). */
  readonly apiKey?: string;
  /** JWT, with `organizationId`, instead of an API key. */
  readonly jwtToken?: string;
  /** The organization a `jwtToken` acts for. */
  readonly organizationId?: string;
  /** API base URL. Default `https://app.daytona.io/api`. */
  readonly apiUrl?: string;
  /** Target (region) of new sandboxes. Default `us`. */
  readonly target?: string;
  /** Snapshot launched when `LaunchSpec.template` is absent. Default: none, Daytona's default snapshot. */
  readonly snapshot?: string;
  /** Build every sandbox from this image instead of a snapshot (`LaunchSpec.template` still names a snapshot). */
  readonly image?: string;
  /** Resources of sandboxes built from `image`; a snapshot brings its own. Default: Daytona's. */
  readonly resources?: DaytonaResources;
  /** Minutes without activity before Daytona stops a sandbox; 0 never. Always sent. Default 15. */
  readonly autoStopMinutes?: number;
  /** Minutes a stopped sandbox waits before Daytona archives it; 0 means Daytona's longest. Always sent. Default 10 080 (7 days). */
  readonly autoArchiveMinutes?: number;
  /** Minutes a stopped sandbox waits before Daytona deletes it; -1 never, 0 as soon as it stops. Always sent. Default -1. */
  readonly autoDeleteMinutes?: number;
  /** Volumes to mount into every sandbox. Default none. */
  readonly volumes?: readonly DaytonaVolume[];
  /**
   * Absolute directory inside the sandbox for the runtime's own records (async
   * command claims and timeout marks, staged stdin). Default `/home/daytona/.sandport`.
   */
  readonly commandStateDirectory?: string;
  /** Bound in ms of the readiness probe `start` and `recreate` run (one command). Default 30 000. */
  readonly readinessProbeMs?: number;
}

/** Every option `DaytonaRuntime` takes; any other is refused, naming the nearest known one. */
export const DAYTONA_OPTION_KEYS = keyList<DaytonaRuntimeOptions>({
  ...REMOTE_RUNTIME_OPTION_SHAPE,
  apiKey: true,
  jwtToken: true,
  organizationId: true,
  apiUrl: true,
  target: true,
  snapshot: true,
  image: true,
  resources: true,
  autoStopMinutes: true,
  autoArchiveMinutes: true,
  autoDeleteMinutes: true,
  volumes: true,
  workspaceRoot: true,
  commandStateDirectory: true,
  listPageSize: true,
  readinessProbeMs: true,
});

/** The credentials, exactly one kind. */
export type DaytonaCredentials =
  | { readonly apiKey: string }
  | { readonly jwtToken: string; readonly organizationId: string };

/** Options after defaults and validation. */
export interface ResolvedOptions extends ResolvedRemote<typeof DAYTONA_DEFAULTS> {
  readonly credentials: DaytonaCredentials;
  readonly apiUrl: string;
  readonly target: string;
  readonly snapshot: string | undefined;
  readonly image: string | undefined;
  readonly resources: DaytonaResources | undefined;
  readonly autoStopMinutes: number;
  readonly autoArchiveMinutes: number;
  readonly autoDeleteMinutes: number;
  readonly volumes: readonly DaytonaVolumeMount[];
  readonly commandStateDirectory: string;
  readonly readinessProbeMs: number;
}

/**
 * Default per-call deadlines, used when a call's `OpOptions.timeoutMs` is
 * absent. `launchMs` covers the create (an image build included; the
 * workspace is made by its first use); `lifecycleMs` covers `stop`, `start` and `recreate`, a replacement included.
 */
export const DEFAULT_DAYTONA_TIMEOUTS: OperationTimeouts = remoteTimeouts({ launchMs: 180_000, lifecycleMs: 240_000 });

/**
 * The home of Daytona's sandbox user `daytona`: `executeCommand` and a
 * terminal start a command in the workspace root here, and its script makes
 * (when missing) and enters the workspace by its path from here
 * (`workspaceEntry`). Session commands find their way from `$HOME` instead.
 */
export const DAYTONA_HOME = "/home/daytona";

/** The defaults of the remote options Daytona shares. */
const DAYTONA_DEFAULTS = {
  timeouts: DEFAULT_DAYTONA_TIMEOUTS,
  network: true,
  workspaceRoot: "/home/daytona/workspace",
  listPageSize: { max: 200, fallback: 100 },
} as const;

/** Validates options and fills defaults. Throws `INVALID_REQUEST`; does no I/O. */
export function resolveOptions(given: DaytonaRuntimeOptions): ResolvedOptions {
  const read = new OptionReader("DaytonaRuntime", PROVIDER);
  const options = read.object(given, DAYTONA_OPTION_KEYS);
  const remote = read.remote(options, DAYTONA_DEFAULTS);
  const snapshot = read.text(options.snapshot, "snapshot");
  const image = read.text(options.image, "image");
  if (snapshot !== undefined && image !== undefined) throw read.refuse("image", "cannot be given with snapshot");
  if (options.resources !== undefined && image === undefined) {
    throw read.refuse("resources", "apply only to sandboxes built from an image (a snapshot brings its own)");
  }
  return {
    ...remote,
    credentials: readCredentials(read, options),
    apiUrl: read.url(options.apiUrl, "apiUrl") ?? "https://app.daytona.io/api",
    target: read.text(options.target, "target") ?? "us",
    snapshot,
    image,
    resources: readResources(read, options.resources),
    autoStopMinutes: read.integer(options.autoStopMinutes, "autoStopMinutes", 0, 10_000_000) ?? 15,
    autoArchiveMinutes: read.integer(options.autoArchiveMinutes, "autoArchiveMinutes", 0, 10_000_000) ?? 10_080,
    autoDeleteMinutes: read.integer(options.autoDeleteMinutes, "autoDeleteMinutes", -1, 10_000_000) ?? -1,
    volumes: readVolumes(read, options.volumes),
    commandStateDirectory:
      read.absolutePath(options.commandStateDirectory, "commandStateDirectory") ?? "/home/daytona/.sandport",
    readinessProbeMs: read.durationMs(options.readinessProbeMs, "readinessProbeMs") ?? 30_000,
  };
}

function readCredentials(read: OptionReader, options: DaytonaRuntimeOptions): DaytonaCredentials {
  const apiKey = read.text(options.apiKey, "apiKey");
  const jwtToken = read.text(options.jwtToken, "jwtToken");
  const organizationId = read.text(options.organizationId, "organizationId");
  if (apiKey !== undefined) {
    if (jwtToken !== undefined) throw read.refuse("jwtToken", "cannot be given with apiKey");
    return { apiKey };
  }
  if (jwtToken === undefined) {
    throw read.refuse("apiKey", "is required, or jwtToken with organizationId (nothing is read from DAYTONA_*)");
  }
  if (organizationId === undefined) throw read.refuse("organizationId", "is required with jwtToken");
  return { jwtToken, organizationId };
}

const VOLUME_KEYS = keyList<DaytonaVolume>({ volumeId: true, mountPath: true, subpath: true });

function readResources(read: OptionReader, resources: DaytonaResources | undefined): DaytonaResources | undefined {
  if (resources === undefined) return undefined;
  if (typeof resources !== "object" || resources === null) throw read.refuse("resources", "must be an object");
  read.known(resources, keyList<DaytonaResources>({ cpu: true, memoryGiB: true, diskGiB: true }), "resources.");
  const cpu = read.integer(resources.cpu, "resources.cpu", 1, 1024);
  const memoryGiB = read.integer(resources.memoryGiB, "resources.memoryGiB", 1, 65_536);
  const diskGiB = read.integer(resources.diskGiB, "resources.diskGiB", 1, 65_536);
  return Object.freeze({
    ...(cpu === undefined ? {} : { cpu }),
    ...(memoryGiB === undefined ? {} : { memoryGiB }),
    ...(diskGiB === undefined ? {} : { diskGiB }),
  });
}

function readVolumes(read: OptionReader, volumes: readonly DaytonaVolume[] | undefined): readonly DaytonaVolumeMount[] {
  if (volumes === undefined) return [];
  if (!Array.isArray(volumes)) throw read.refuse("volumes", "must be an array");
  return Object.freeze(
    volumes.map((volume: DaytonaVolume, index) => {
      if (typeof volume !== "object" || volume === null) throw read.refuse(`volumes[${index}]`, "must be an object");
      read.known(volume, VOLUME_KEYS, `volumes[${index}].`);
      const subpath = read.text(volume.subpath, `volumes[${index}].subpath`);
      return Object.freeze({
        volumeId: read.requiredText(volume.volumeId, `volumes[${index}].volumeId`, "the volume to mount"),
        mountPath: read.absolutePath(volume.mountPath, `volumes[${index}].mountPath`) ?? missing(read, index),
        ...(subpath === undefined ? {} : { subpath }),
      });
    }),
  );
}

function missing(read: OptionReader, index: number): never {
  throw read.refuse(`volumes[${index}].mountPath`, "is required (where the volume appears in the sandbox)");
}
