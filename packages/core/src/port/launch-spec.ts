import { keyList } from "../validation/known-keys.js";
import type { Labels } from "./labels.js";
import type { NetworkPolicy } from "./network-policy.js";
import type { SnapshotRef } from "./snapshot.js";

/** Resource limits requested for a sandbox. A runtime that cannot enforce one refuses with `UNSUPPORTED`. */
export interface ResourceLimits {
  /** Memory ceiling in MiB for everything the sandbox runs. */
  readonly memoryMiB?: number;
  /** CPU share in cores (e.g. `0.5`, `2`). */
  readonly cpus?: number;
  /** Maximum number of processes alive at once. */
  readonly maxProcesses?: number;
  /**
   * Disk ceiling in MiB for what the sandbox writes (its workspace and any
   * other writable filesystem it has). Only a runtime whose `diskLimit`
   * capability is not an absence accepts it; every other refuses it with
   * `UNSUPPORTED` before anything is created, never letting a workspace fill
   * the host's disk unbounded while the caller believes it bounded.
   */
  readonly diskMiB?: number;
}

/** What to launch. Every field is optional; absent fields take the runtime's documented default. */
export interface LaunchSpec {
  /** Provider template, image or snapshot name. Default: the runtime's configured template. */
  readonly template?: string;
  /**
   * Environment variables set for every command in the sandbox. Names must match
   * `[A-Za-z_][A-Za-z0-9_]*`. Nothing from the caller's own environment is inherited.
   */
  readonly env?: Readonly<Record<string, string>>;
  /** Labels for finding the sandbox again with `findByLabels`. */
  readonly labels?: Labels;
  /**
   * Upper bound on the sandbox's life in milliseconds, after which the provider
   * may reclaim it. Default: the runtime's configured lifetime (always explicit,
   * never the vendor's hidden default).
   */
  readonly lifetimeMs?: number;
  /**
   * Where commands may connect to: `"none"`, `"all"` or `{ allow: [...] }`
   * (see {@link NetworkPolicy}); `true` means `"all"` and `false` `"none"`.
   * Default: the runtime's documented default (each adapter's options say
   * which). A runtime that cannot enforce the requested policy refuses it with
   * `UNSUPPORTED` before anything is created (its `networkPolicy` capability
   * says which it enforces); a policy is never silently widened.
   */
  readonly network?: NetworkPolicy | boolean;
  /** Resource limits; see {@link ResourceLimits}. */
  readonly resources?: ResourceLimits;
  /**
   * TCP ports a server in the sandbox will listen on, to be reached through
   * `portEndpoint`: integers from 1 to 65535, each once. Some providers must
   * know them at launch: there, an endpoint for a port not declared here is
   * refused with `INVALID_REQUEST`, and so is a launch declaring more ports
   * than the provider allows (the runtime's documentation says how many).
   * Default: none.
   */
  readonly ports?: readonly number[];
  /**
   * A unique key for this launch attempt, stored as the reserved label
   * `sandport.launch-key`. When a launch's outcome is unknown (its response was
   * lost), `findByLabels({ "sandport.launch-key": key })` finds the sandbox it
   * may have created. The orchestrator sets it; most callers never do.
   */
  readonly launchKey?: string;
  /**
   * A snapshot to start from (as `snapshot` returned it, or its id): the new
   * sandbox begins with what the snapshot holds. Only a runtime with
   * `snapshot` (capability `snapshots`) accepts it; every other refuses with
   * `UNSUPPORTED` before anything is created. A snapshot that does not exist,
   * or is not this runtime's owner's, is `NOT_FOUND`.
   */
  readonly from?: SnapshotRef | string;
}

/** Every key a {@link ResourceLimits} may have; any other is refused with `INVALID_REQUEST`. */
export const RESOURCE_LIMIT_KEYS = keyList<ResourceLimits>({
  memoryMiB: true,
  cpus: true,
  maxProcesses: true,
  diskMiB: true,
});

/** Every key a {@link LaunchSpec} may have; any other is refused with `INVALID_REQUEST`. */
export const LAUNCH_SPEC_KEYS = keyList<LaunchSpec>({
  template: true,
  env: true,
  labels: true,
  lifetimeMs: true,
  network: true,
  resources: true,
  ports: true,
  launchKey: true,
  from: true,
});
