import type { SandboxHandle, SandboxRuntime } from "@sandport/core";
import type { EmulatorServer } from "../harness/http-server.js";
import type { RegisteredSandbox, SandboxRegistry } from "../harness/sandbox-registry.js";
import type { DaytonaCredentials } from "./auth.js";
import type { PreviewProxies } from "./preview-proxy.js";
import type { PtySession } from "./pty-session.js";
import type { SessionTable } from "./session-table.js";
import type { DaytonaSnapshot, SnapshotTable } from "./snapshot-table.js";

/** The Daytona states the emulator moves a sandbox through (a subset of the API's `SandboxState`). */
export type DaytonaState =
  | "creating"
  | "starting"
  | "started"
  | "stopping"
  | "stopped"
  | "snapshotting"
  | "forking"
  | "destroying"
  | "error";

/**
 * What a sandbox runs in, as the API's `SandboxClass` names it. Daytona takes
 * it from the snapshot; the emulator from `startDaytonaEmulator({ sandboxClass })`,
 * and a fork from its source. Only VM classes can be forked.
 */
export type DaytonaSandboxClass = "container" | "linux-vm";

/** Resources as the API reports them: vCPUs, GPUs, memory and disk in GiB. */
export interface DaytonaResources {
  readonly cpu: number;
  readonly gpu: number;
  readonly memory: number;
  readonly disk: number;
}

/** The build the SDK sends for `create({ image })`. */
export interface DaytonaBuildInfo {
  readonly dockerfileContent: string;
  readonly contextHashes?: readonly string[];
}

/** Daytona-specific state of one emulated sandbox. */
export interface DaytonaSandboxData {
  /** Unique within the organization; the id unless the caller chose one. */
  readonly name: string;
  /** Snapshot name; absent for a sandbox built from an image. */
  readonly snapshot: string | undefined;
  readonly buildInfo: DaytonaBuildInfo | undefined;
  /** The OS user commands run as (reported only; commands run as the backend's user). */
  readonly user: string;
  /** Environment set for every command, from `env` at create. */
  readonly env: Readonly<Record<string, string>>;
  readonly public: boolean;
  readonly networkBlockAll: boolean;
  /** IPv4 CIDR ranges, comma-separated, as sent (absent: none). */
  readonly networkAllowList: string | undefined;
  /** Names and `*.` wildcards, comma-separated, as sent (absent: none). */
  readonly domainAllowList: string | undefined;
  readonly target: string;
  /** The class the API reports; only a VM class (`linux-vm`) can be forked. */
  readonly sandboxClass: DaytonaSandboxClass;
  readonly resources: DaytonaResources;
  /** Minutes; reported, not enforced. `0` disables. */
  autoStopInterval: number;
  /** Minutes; reported, not enforced. */
  autoArchiveInterval: number;
  /** Minutes; `0` deletes the sandbox when it stops, `-1` never. Otherwise reported, not enforced. */
  autoDeleteInterval: number;
  /** Where the API is taking the sandbox. */
  desiredState: "started" | "stopped" | "destroyed";
  /** Why the sandbox is in state `error`. */
  errorReason: string | undefined;
  /** Epoch milliseconds. */
  updatedAt: number;
  /** Epoch milliseconds. */
  lastActivityAt: number;
  /** The backend sandbox that does the real work; absent until the launch completed. */
  handle: SandboxHandle | undefined;
  /** The state change under way, if any; the API refuses another until it settles. */
  transition: Promise<void> | undefined;
  /** Sessions of the toolbox's process API. */
  readonly sessions: SessionTable;
  /** PTY sessions of the toolbox (`process/pty`), by id; an ended one is removed. */
  readonly ptys: Map<string, PtySession>;
  /** Aborts every `process/execute` command in flight (stop and delete kill them). */
  readonly commands: Set<AbortController>;
}

/** A sandbox held by the emulator. */
export type DaytonaSandbox = RegisteredSandbox<DaytonaSandboxData>;

/** What to create, already validated. */
export interface CreateSandboxInput {
  readonly name: string | undefined;
  readonly snapshot: string | undefined;
  readonly buildInfo: DaytonaBuildInfo | undefined;
  readonly user: string | undefined;
  readonly env: Record<string, string>;
  readonly labels: Record<string, string>;
  readonly public: boolean;
  readonly networkBlockAll: boolean;
  readonly networkAllowList: string | undefined;
  readonly domainAllowList: string | undefined;
  readonly target: string | undefined;
  readonly resources: Partial<DaytonaResources>;
  readonly autoStopInterval: number | undefined;
  readonly autoArchiveInterval: number | undefined;
  readonly autoDeleteInterval: number | undefined;
  readonly foreign: boolean;
  /** The snapshot taken from a sandbox that `snapshot` names, whose files the new sandbox starts with. */
  readonly from?: DaytonaSnapshot;
}

/** The emulator's state and lifecycle operations, shared by its route modules. */
export interface DaytonaContext {
  readonly server: EmulatorServer;
  readonly credentials: DaytonaCredentials;
  readonly pageSize: number;
  readonly backend: SandboxRuntime;
  readonly registry: SandboxRegistry<DaytonaSandboxData>;
  /** What the API reports as `toolboxProxyUrl`: `<emulator>/toolbox`. */
  readonly toolboxProxyUrl: string;
  /** The target (region) of sandboxes created without one. */
  readonly defaultTarget: string;
  /** The preview listeners (one per sandbox and port). */
  readonly previews: PreviewProxies;
  /** The organization's snapshots taken from sandboxes, each a real snapshot of the backend. */
  readonly snapshots: SnapshotTable;
  /** Move a started sandbox to `snapshotting`, take the snapshot `name`, then back to `started`. */
  snapshotSandbox(sandbox: DaytonaSandbox, name: string): void;
  /**
   * Register a fork of a started `source` in state `creating` (the source is
   * `forking` meanwhile) and copy the source's backend sandbox in the
   * background (the backend's own `fork`). Throws when `name` is taken.
   */
  forkSandbox(source: DaytonaSandbox, name: string | undefined): DaytonaSandbox;
  /** A sandbox by id or by name. */
  find(idOrName: string): DaytonaSandbox | undefined;
  /** Register a sandbox in state `creating` and launch it in the background. Throws when a name is taken. */
  createSandbox(input: CreateSandboxInput): DaytonaSandbox;
  /** Move a stopped sandbox to `starting`, then `started`. */
  startSandbox(sandbox: DaytonaSandbox): void;
  /** Move a started sandbox to `stopping` (its processes are killed, files kept), then `stopped`. */
  stopSandbox(sandbox: DaytonaSandbox): void;
  /** Move a sandbox to `destroying`; it disappears once its backend workspace is destroyed. */
  deleteSandbox(sandbox: DaytonaSandbox): void;
}
