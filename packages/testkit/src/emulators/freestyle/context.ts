import type { SandboxHandle, SandboxRuntime, SnapshotRef } from "@sandport/core";
import type { RegisteredSandbox, SandboxRegistry } from "../harness/sandbox-registry.js";
import type { BackgroundRequests } from "./background.js";
import type { SnapshotShelf } from "./snapshot-shelf.js";
import type { UploadSessions } from "./uploads.js";

/** VM states of the `/v5` API. The emulator uses `running`, `paused` and `stopped`. */
export type VmState = "starting" | "running" | "pausing" | "paused" | "stopped";

/**
 * Lifetime settings of a VM, in seconds; `null` means none (the API's `-1`).
 * The emulator enforces all but `idleTimeoutSeconds` (it sees no network traffic).
 */
export interface VmLimits {
  idleTimeoutSeconds: number | null;
  /** Delete once the VM has not been running for this long; `0` = as soon as it stops or pauses. */
  autoDeleteSeconds: number | null;
  /** Delete this long after creation. */
  ttlSeconds: number | null;
  /** Pause once one run has lasted this long. */
  maxRunSeconds: number | null;
  /** Pause once all runs together have lasted this long; later starts are refused with 409. */
  maxRunTotalSeconds: number | null;
}

/** One firewall rule a VM was created with, as the API reports it. */
export interface FirewallRuleRecord {
  readonly id: string;
  readonly action: "allow";
  readonly source: Readonly<Record<string, unknown>>;
  readonly destination: Readonly<Record<string, unknown>>;
  readonly description: string | null;
  readonly createdAt: string;
}

/** Timers that enforce a VM's limits. */
export interface VmTimers {
  ttl: NodeJS.Timeout | undefined;
  run: NodeJS.Timeout | undefined;
  autoDelete: NodeJS.Timeout | undefined;
}

/** Freestyle-specific state of one emulated VM. */
export interface FreestyleVmData {
  slug: string | null;
  displayName: string | null;
  /** The snapshot name it was created from (a catalog name like `freestyle/ubuntu`). */
  readonly snapshotId: string;
  readonly limits: VmLimits;
  automaticRestart: boolean;
  readonly firewallRules: readonly FirewallRuleRecord[];
  /** Whether a firewall rule lets the VM reach the public Internet; the backend launch's `network`. */
  readonly publicEgress: boolean;
  /** The ranges outbound firewall rules let the VM reach; without public egress, the backend's allow list. */
  readonly egressRanges: readonly string[];
  /** Working directory of `/v1` commands and relative `/v1` file paths (a VM path). */
  readonly legacyWorkdir: string | null;
  /** The backend sandbox that does the real work. */
  readonly handle: SandboxHandle;
  /** Epoch milliseconds. */
  updatedAt: number;
  /** Epoch milliseconds at which the current run began; `undefined` while not running. */
  runStartedAt: number | undefined;
  /** Epoch milliseconds since which the VM has not been running; `undefined` while running. */
  idleSince: number | undefined;
  /** Milliseconds of all finished runs. */
  finishedRunMs: number;
  readonly timers: VmTimers;
}

/** One emulated VM. */
export type FreestyleVm = RegisteredSandbox<FreestyleVmData>;

/** What to create. */
export interface CreateVmInput {
  readonly slug: string | null;
  /** Take `slug` from the VM that holds it instead of failing with 409. */
  readonly reassignSlug: boolean;
  readonly displayName: string | null;
  readonly snapshotId: string;
  readonly metadata: Record<string, string>;
  readonly limits: VmLimits;
  readonly automaticRestart: boolean;
  readonly firewallRules: readonly FirewallRuleRecord[];
  readonly publicEgress: boolean;
  readonly egressRanges: readonly string[];
  readonly legacyWorkdir: string | null;
  readonly foreign: boolean;
  /** The backend snapshot whose files the VM starts with (a VM created from one of the emulator's snapshots). */
  readonly restoreFrom?: SnapshotRef;
}

/** The emulator's state and lifecycle operations, shared by its route modules. */
export interface FreestyleContext {
  readonly apiKey: string;
  /** Largest page `GET /v5/vms` returns. */
  readonly pageSize: number;
  /** The VM directory mapped onto the backend workspace. */
  readonly workspaceDirectory: string;
  /** The only Linux user a VM has. */
  readonly linuxUser: string;
  /** Snapshot names besides the platform catalog that create accepts. */
  readonly snapshots: ReadonlySet<string>;
  readonly backend: SandboxRuntime;
  readonly registry: SandboxRegistry<FreestyleVmData>;
  readonly background: BackgroundRequests;
  readonly uploads: UploadSessions;
  /** The snapshots taken (`POST /v5/vms/{id}/snapshot`), which create also boots from. */
  readonly shelf: SnapshotShelf;
  /** Aborted when the emulator stops; work detached from its connection listens to it. */
  readonly stopSignal: AbortSignal;
  /** A VM by id, or by slug. */
  findVm(idOrSlug: string): FreestyleVm | undefined;
  /** Launch a backend sandbox and register the VM. Throws `ApiError` on a taken slug or a refusing backend. */
  createVm(input: CreateVmInput): Promise<FreestyleVm>;
  /** Remove the VM and destroy its backend sandbox. */
  deleteVm(vm: FreestyleVm): Promise<void>;
  /** Freeze a running VM (no-op when already paused or stopped). */
  pauseVm(vm: FreestyleVm): void;
  /** Boot or resume a VM. Throws 409 when its total run budget is spent. */
  startVm(vm: FreestyleVm): void;
  /** Stop a VM (the `/v1` `stop` and `kill`): like pause, but reported as `stopped`. */
  stopVm(vm: FreestyleVm): void;
  /** Re-arm the VM's limit timers after its settings changed. */
  rearm(vm: FreestyleVm): void;
}
