import { invalidRequest, type ResourceLimits, unsupported, type ValidatedLaunchSpec } from "@sandport/core";
import { metadataCodec } from "@sandport/core/adapter";
import { PROVIDER, SDK_LANGUAGE_LABEL } from "./handle.js";
import type {
  DaytonaCreateBody,
  DaytonaCreateParams,
  DaytonaSandboxRecord,
  DaytonaSdkModule,
} from "./internal/sdk-types.js";
import { type DaytonaNetworkFields, networkFields } from "./network-plan.js";
import type { ResolvedOptions } from "./options.js";
import { ownedSnapshotName } from "./snapshots.js";

/** CPU, memory and disk as Daytona takes them: vCPUs and GiB, whole numbers. */
interface Resources {
  readonly cpu?: number;
  readonly memory?: number;
  readonly disk?: number;
}

/** What one launch creates, validated: everything the create request carries. */
export interface LaunchPlan {
  /** The snapshot, or absent for Daytona's default (or for an image build). */
  readonly snapshot: string | undefined;
  /** `LaunchSpec.from`: one of our snapshots (also `snapshot`), checked to exist before the create. */
  readonly from: string | undefined;
  /** The image to build from, when no snapshot is named. */
  readonly image: string | undefined;
  readonly resources: Resources | undefined;
  readonly env: Record<string, string>;
  /** What the sandbox carries: the caller's labels, the ownership label and the launch key. */
  readonly labels: Record<string, string>;
  /** `networkBlockAll`, and an allow list's `networkAllowList` and `domainAllowList`. */
  readonly network: DaytonaNetworkFields;
}

/**
 * Checks a validated launch spec against what Daytona can do (`INVALID_REQUEST`,
 * `UNSUPPORTED`, before any request). `template` names a snapshot; a
 * deadline-style `lifetimeMs` has no Daytona equivalent (sandboxes end by
 * inactivity: `autoStopMinutes`, `autoDeleteMinutes`); resources apply to
 * image builds only; `ports` need no declaration (any port has a preview link).
 * `from` is a snapshot of ours by its name (`NOT_FOUND` otherwise), sent as the snapshot.
 */
export function planLaunch(options: ResolvedOptions, valid: ValidatedLaunchSpec, launchKey: string): LaunchPlan {
  if (valid.labels?.[SDK_LANGUAGE_LABEL] !== undefined) {
    throw invalidRequest(
      `label ${SDK_LANGUAGE_LABEL} is reserved: the Daytona SDK sets it on every sandbox`,
      { field: "labels", key: SDK_LANGUAGE_LABEL },
      PROVIDER,
    );
  }
  if (valid.lifetimeMs !== undefined) {
    throw unsupported(
      PROVIDER,
      "lifetimeMs",
      "Daytona ends sandboxes by inactivity, not by a deadline: see autoStopMinutes and autoDeleteMinutes",
    );
  }
  if (valid.from !== undefined && valid.template !== undefined) {
    throw invalidRequest("from and template exclude each other: both name a snapshot", { field: "from" }, PROVIDER);
  }
  const from = valid.from === undefined ? undefined : ownedSnapshotName(options.owner, valid.from);
  const snapshot = from ?? valid.template ?? options.snapshot;
  const image = snapshot === undefined ? options.image : undefined;
  return {
    snapshot,
    from,
    image,
    resources: resourcesOf(options, valid.resources, image !== undefined),
    env: { ...valid.env },
    labels: { ...metadataCodec.encode(options.owner, valid.labels, launchKey) },
    network: networkFields(valid.network, options.network),
  };
}

/** The parameters of the SDK's `Daytona.create` for a plan: every interval and the network setting always sent. */
export function createParams(options: ResolvedOptions, plan: LaunchPlan): DaytonaCreateParams {
  return {
    ...(plan.snapshot === undefined ? {} : { snapshot: plan.snapshot }),
    ...(plan.image === undefined ? {} : { image: plan.image }),
    ...(plan.resources === undefined ? {} : { resources: plan.resources }),
    envVars: plan.env,
    labels: plan.labels,
    public: false,
    autoStopInterval: options.autoStopMinutes,
    autoArchiveInterval: options.autoArchiveMinutes,
    autoDeleteInterval: options.autoDeleteMinutes,
    ...plan.network,
    ...(options.volumes.length === 0 ? {} : { volumes: options.volumes.map((volume) => ({ ...volume })) }),
  };
}

/**
 * The same create as the API's own request body, for the low-level API
 * (detached launches): what the SDK's `create` would send, the SDK's language
 * label included, and an image as the build the SDK would make of it.
 */
export function createBody(options: ResolvedOptions, plan: LaunchPlan, sdk: DaytonaSdkModule): DaytonaCreateBody {
  return {
    ...(plan.snapshot === undefined ? {} : { snapshot: plan.snapshot }),
    ...(plan.image === undefined ? {} : { buildInfo: { dockerfileContent: sdk.Image.base(plan.image).dockerfile } }),
    ...plan.resources,
    env: plan.env,
    labels: { ...plan.labels, [SDK_LANGUAGE_LABEL]: "python" },
    public: false,
    target: options.target,
    autoStopInterval: options.autoStopMinutes,
    autoArchiveInterval: options.autoArchiveMinutes,
    autoDeleteInterval: options.autoDeleteMinutes,
    ...plan.network,
    ...(options.volumes.length === 0 ? {} : { volumes: options.volumes.map((volume) => ({ ...volume })) }),
  };
}

/**
 * A create body that launches a sandbox the way `record` was launched: its
 * snapshot (or build), user, env, labels, target, resources, lifecycle
 * intervals, volumes, network (its allow lists too) and visibility. Its files are not copied.
 */
export function replacementBody(options: ResolvedOptions, record: DaytonaSandboxRecord): DaytonaCreateBody {
  const dockerfile = record.buildInfo?.dockerfileContent;
  const build = dockerfile === undefined ? undefined : { dockerfileContent: dockerfile };
  return {
    ...(build === undefined && record.snapshot !== undefined ? { snapshot: record.snapshot } : {}),
    ...(build === undefined ? {} : { buildInfo: build }),
    ...(build === undefined ? {} : dropUndefined({ cpu: record.cpu, memory: record.memory, disk: record.disk })),
    ...(record.user === undefined ? {} : { user: record.user }),
    env: { ...record.env },
    labels: { ...record.labels },
    public: record.public ?? false,
    target: record.target ?? options.target,
    autoStopInterval: record.autoStopInterval ?? options.autoStopMinutes,
    autoArchiveInterval: record.autoArchiveInterval ?? options.autoArchiveMinutes,
    autoDeleteInterval: record.autoDeleteInterval ?? options.autoDeleteMinutes,
    networkBlockAll: record.networkBlockAll ?? !options.network,
    ...(record.networkAllowList ? { networkAllowList: record.networkAllowList } : {}),
    ...(record.domainAllowList ? { domainAllowList: record.domainAllowList } : {}),
    ...(record.volumes && record.volumes.length > 0
      ? {
          volumes: record.volumes.map(({ volumeId, mountPath, subpath }) => ({
            volumeId,
            mountPath,
            ...(subpath ? { subpath } : {}),
          })),
        }
      : {}),
  };
}

/** Resources of a launch: the spec's over the options'; refused where Daytona cannot honour them. */
function resourcesOf(
  options: ResolvedOptions,
  limits: ResourceLimits | undefined,
  fromImage: boolean,
): Resources | undefined {
  const configured = options.resources
    ? dropUndefined({
        cpu: options.resources.cpu,
        memory: options.resources.memoryGiB,
        disk: options.resources.diskGiB,
      })
    : undefined;
  if (limits === undefined) return fromImage ? configured : undefined;
  if (!fromImage) throw unsupported(PROVIDER, "resource limits", "a Daytona snapshot brings its own resources");
  if (limits.maxProcesses !== undefined)
    throw unsupported(PROVIDER, "resources.maxProcesses", "Daytona has no process limit");
  if (limits.cpus !== undefined && !Number.isInteger(limits.cpus)) {
    throw unsupported(PROVIDER, "fractional resources.cpus", "Daytona allocates whole vCPUs");
  }
  if (limits.memoryMiB !== undefined && limits.memoryMiB % 1024 !== 0) {
    throw unsupported(PROVIDER, "resources.memoryMiB that is not whole GiB", "Daytona allocates memory in GiB");
  }
  if (limits.diskMiB !== undefined && limits.diskMiB % 1024 !== 0) {
    throw unsupported(PROVIDER, "resources.diskMiB that is not whole GiB", "Daytona sizes disks in GiB");
  }
  return {
    ...configured,
    ...dropUndefined({
      cpu: limits.cpus,
      memory: limits.memoryMiB === undefined ? undefined : limits.memoryMiB / 1024,
      disk: limits.diskMiB === undefined ? undefined : limits.diskMiB / 1024,
    }),
  };
}

function dropUndefined<T extends Record<string, number | undefined>>(value: T): { [K in keyof T]?: number } {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as {
    [K in keyof T]?: number;
  };
}
