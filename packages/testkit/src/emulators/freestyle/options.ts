import { randomBytes } from "node:crypto";
import type { EmulatorBackend } from "../harness/backend.js";
import { BackgroundRequests } from "./background.js";

/** Options of `startFreestyleEmulator`. */
export interface FreestyleEmulatorOptions {
  /** The API key accepted (as `Authorization: Bearer <key>`). Default: a random `fs_…` key. */
  readonly apiKey?: string;
  /**
   * Runtime (or factory) that runs the VMs. Default: `LocalRuntime` from
   * `@sandport/local` in a temporary directory, `isolation: "none"`.
   */
  readonly backend?: EmulatorBackend;
  /**
   * Replaces DNS for the default backend's egress proxy, which enforces the
   * ranges of outbound firewall rules (the conformance suite passes
   * `conformanceEgressResolver`). Ignored with `backend`.
   */
  readonly egressResolver?: (host: string) => Promise<readonly string[]>;
  /** Largest page `GET /v5/vms` returns (the client's `limit` can only lower it). Default: 3, so callers must page. */
  readonly pageSize?: number;
  /**
   * The absolute VM directory that maps onto the backend workspace; file paths
   * must lie under it. Default: the backend's `workspaceRoot` (`/workspace`).
   */
  readonly workspaceDirectory?: string;
  /** The one Linux user of every VM, reported as file owner. Default: `"root"`. */
  readonly linuxUser?: string;
  /** Snapshot names create accepts besides the platform catalog (`freestyle/ubuntu`, ...). Default: none. */
  readonly snapshots?: readonly string[];
  /**
   * Milliseconds after which a request that asked for backgrounding answers
   * 202 and goes on in the background, replacing the client's
   * `x-freestyle-background-after-secs` (the SDK always sends 5). Default: the
   * client's value.
   */
  readonly backgroundAfterMs?: number;
  /** How long a finished background answer can be polled, in milliseconds. Default: 600 000 (10 minutes). */
  readonly backgroundRetentionMs?: number;
  /**
   * Largest background answer stored, in bytes; a larger one is stored as
   * `BACKGROUND_RESULT_UNSTORABLE`. Default: 8 MiB.
   */
  readonly maxStoredResultBytes?: number;
}

const DEFAULT_PAGE_SIZE = 3;
const DEFAULT_LINUX_USER = "root";
const DEFAULT_BACKGROUND_RETENTION_MS = 600_000;
const DEFAULT_MAX_STORED_RESULT_BYTES = 8 * 1024 * 1024;

/** Options after validation, with every default applied. */
export interface Settings {
  readonly apiKey: string;
  readonly pageSize: number;
  readonly linuxUser: string;
  readonly snapshots: ReadonlySet<string>;
  readonly background: BackgroundRequests;
  /** The VM directory mapped onto the backend workspace. */
  readonly workspaceDirectory: string;
}

/**
 * Validate the options (throwing `RangeError`) and apply defaults;
 * `workspaceRoot` is the backend's, the default `workspaceDirectory`.
 */
export function resolveSettings(options: FreestyleEmulatorOptions, workspaceRoot: string): Settings {
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 1000) {
    throw new RangeError(`pageSize must be an integer from 1 to 1000, got ${pageSize}`);
  }
  const linuxUser = options.linuxUser ?? DEFAULT_LINUX_USER;
  if (!/^[a-z_][a-z0-9_-]{0,31}$/.test(linuxUser))
    throw new RangeError(`linuxUser is not a Linux user name: ${linuxUser}`);
  const checkMs = (name: string, value: number | undefined) => {
    if (value !== undefined && !(Number.isFinite(value) && value >= 0)) {
      throw new RangeError(`${name} must be a non-negative number of milliseconds, got ${value}`);
    }
  };
  checkMs("backgroundAfterMs", options.backgroundAfterMs);
  checkMs("backgroundRetentionMs", options.backgroundRetentionMs);
  const maxStoredBytes = options.maxStoredResultBytes ?? DEFAULT_MAX_STORED_RESULT_BYTES;
  if (!Number.isInteger(maxStoredBytes) || maxStoredBytes < 0) {
    throw new RangeError(`maxStoredResultBytes must be a non-negative integer, got ${maxStoredBytes}`);
  }
  if (options.apiKey !== undefined && !/^\S+$/.test(options.apiKey)) {
    throw new RangeError("apiKey must be a non-empty string without whitespace");
  }
  const workspaceDirectory = options.workspaceDirectory ?? workspaceRoot;
  checkWorkspaceDirectory(workspaceDirectory);
  return {
    workspaceDirectory,
    apiKey: options.apiKey ?? `fs_${randomBytes(20).toString("hex")}`,
    pageSize,
    linuxUser,
    snapshots: new Set(options.snapshots ?? []),
    background: new BackgroundRequests({
      afterMs: options.backgroundAfterMs,
      retentionMs: options.backgroundRetentionMs ?? DEFAULT_BACKGROUND_RETENTION_MS,
      maxStoredBytes,
    }),
  };
}

function checkWorkspaceDirectory(path: string): void {
  if (
    !/^\/[^\0]*[^/]$/.test(path) ||
    path.split("/").some((part) => part === "." || part === "..") ||
    path.includes("//")
  ) {
    throw new RangeError(`workspaceDirectory must be an absolute path other than / without a trailing slash: ${path}`);
  }
}
