import { LAUNCH_KEY_LABEL, type Labels, type NetworkAllowList, OWNER_LABEL, type ResourceLimits } from "@sandport/core";
import type { SandboxUser } from "../options.js";
import type { NamespaceHolder } from "../processes/sandbox-namespaces.js";

/** Format tag of a sandbox's metadata file. */
export const SANDBOX_RECORD_FORMAT = "sandport-local-sandbox-v1";

/** One cgroup directory and the hierarchy version it lives in. */
export interface CgroupDirectory {
  /** 1 for a legacy per-controller hierarchy, 2 for the unified one. */
  readonly version: 1 | 2;
  /** Absolute directory. */
  readonly directory: string;
}

/** Control groups a sandbox's commands join; absolute directories, fixed at launch. */
export interface SandboxCgroups {
  /** Cgroups carrying the sandbox's resource limits; each command joins all of them. */
  readonly limits: readonly CgroupDirectory[];
  /**
   * Cgroup under which each command gets its own leaf, so the command's whole
   * tree can be killed: with `cgroup.kill` on v2, by signalling every member on
   * v1. Absent when commands are not tracked by cgroup.
   */
  readonly tracking?: CgroupDirectory;
  /**
   * The sandbox's cgroup v2 directory whose `cgroup.freeze` stops and resumes
   * it (see `addFreezer`): every command joins it, or (under `none`) a leaf
   * beneath it, which is then also `tracking`. Absent for a sandbox that
   * cannot be stopped.
   */
  readonly freezer?: CgroupDirectory;
}

/** What `sandbox.json` holds: everything needed to rebuild a handle and run commands, from any process. */
export interface SandboxRecord {
  readonly format: typeof SANDBOX_RECORD_FORMAT;
  readonly id: string;
  /** The launching runtime's `owner`; a record with another owner is foreign. */
  readonly owner: string;
  readonly createdAt: string;
  /** Caller labels, without reserved keys. */
  readonly labels: Labels;
  /** `LaunchSpec.launchKey`, searchable as the reserved label `sandport.launch-key`. */
  readonly launchKey?: string;
  /** Launch environment, applied to every command beneath the request's own env. */
  readonly env: Readonly<Record<string, string>>;
  readonly network: boolean;
  /** Every limit the sandbox was given: the launch's own and, beneath them, the runtime's defaults. */
  readonly resources?: ResourceLimits;
  /** The fields of `resources` that came from the launching runtime's `defaultResources`, not from the launch. */
  readonly defaults?: readonly (keyof ResourceLimits)[];
  /** `LaunchSpec.ports`: where a sandbox without network runs a relay beside each command (see `PortForwarder`). */
  readonly ports?: readonly number[];
  /**
   * `LaunchSpec.network`'s allow list, or `"all"` (without `hostNetwork`):
   * the sandbox has no network of its own (`network` is false) and reaches
   * only these destinations (`"all"`: public addresses), through the
   * runtime's egress proxy (see `EgressProxy`). A runtime that does not know
   * this field runs the sandbox's commands without any network: it fails closed.
   */
  readonly egress?: NetworkAllowList | "all";
  /** When `LaunchSpec.lifetimeMs` ends, ISO-8601; past it the sandbox is reclaimed on next access. */
  readonly expiresAt?: string;
  readonly cgroups?: SandboxCgroups;
  /**
   * `resources.diskMiB`: the workspace is a directory inside an ext4 image of
   * `bytes`, mounted on the sandbox directory's `disk/` (see
   * `makeWorkspaceDisk`). A runtime that does not know this field finds no
   * `workspace/` and fails the sandbox's commands and file operations.
   */
  readonly disk?: { readonly bytes: number };
  /**
   * Under `namespaceScope: "sandbox"`: the process that holds the sandbox's
   * namespaces, which every command joins and `destroy` kills. It outlives
   * the runtime that launched the sandbox, so any runtime over the same root finds it here.
   */
  readonly namespaces?: NamespaceHolder;
  /**
   * The host user (uid and gid) the sandbox's commands run as and its
   * workspace belongs to, under a root runtime: a uid of its own from
   * `sandboxUids`, or the configured `sandboxUser`. Absent: the runtime's own
   * user, or (launched as root before sandboxes had uids of their own)
   * `LEGACY_SANDBOX_USER`.
   */
  readonly user?: SandboxUser;
  /** The marker file that holds the sandbox's own uid (see `UidPool`), given back once the sandbox is removed. */
  readonly uidMarker?: string;
}

/** Every label a sandbox answers to in `findByLabels`: caller labels plus its reserved ones. */
export function searchableLabels(record: SandboxRecord): Labels {
  return {
    ...record.labels,
    [OWNER_LABEL]: record.owner,
    ...(record.launchKey === undefined ? {} : { [LAUNCH_KEY_LABEL]: record.launchKey }),
  };
}

/** True when the record carries every label of `query` with the same value. */
export function matchesLabels(record: SandboxRecord, query: Labels): boolean {
  const labels = searchableLabels(record);
  return Object.entries(query).every(([key, value]) => Object.hasOwn(labels, key) && labels[key] === value);
}

/**
 * Parses a metadata file. Returns `undefined` for anything that is not a
 * well-formed record (the sandbox is then treated as foreign, never touched).
 */
export function parseSandboxRecord(text: string): SandboxRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const record = value as Record<string, unknown>;
  const isStringMap = (map: unknown) =>
    typeof map === "object" &&
    map !== null &&
    !Array.isArray(map) &&
    Object.values(map).every((item) => typeof item === "string");
  if (
    record.format !== SANDBOX_RECORD_FORMAT ||
    typeof record.id !== "string" ||
    typeof record.owner !== "string" ||
    typeof record.createdAt !== "string" ||
    typeof record.network !== "boolean" ||
    !isStringMap(record.labels) ||
    !isStringMap(record.env) ||
    (record.user !== undefined && !isUser(record.user)) ||
    (record.uidMarker !== undefined && typeof record.uidMarker !== "string")
  ) {
    return undefined;
  }
  return record as unknown as SandboxRecord;
}

/** A `{ uid, gid }` of positive integers (never root). */
function isUser(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  const { uid, gid } = value as Record<string, unknown>;
  const id = (n: unknown) => Number.isInteger(n) && (n as number) > 0 && (n as number) < 4_294_967_295;
  return id(uid) && id(gid);
}

/** True when the sandbox's `lifetimeMs` has run out. */
export function isExpired(record: SandboxRecord, now = Date.now()): boolean {
  return record.expiresAt !== undefined && Date.parse(record.expiresAt) <= now;
}
