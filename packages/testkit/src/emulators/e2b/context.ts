import type { SandboxHandle, SandboxRuntime } from "@sandport/core";
import type { RegisteredSandbox, SandboxRegistry } from "../harness/sandbox-registry.js";
import type { E2BEgress } from "./egress.js";
import type { ProcessTable } from "./process-table.js";
import type { E2BSnapshot, SnapshotTable } from "./snapshot-table.js";

/**
 * What a template gives each sandbox created from it (OpenAPI `CPUCount`,
 * `MemoryMB`, `DiskSizeMB`): E2B takes a sandbox's sizes from its template's
 * build, never from the create request.
 */
export interface E2BTemplateSize {
  /** vCPUs. */
  readonly cpuCount: number;
  /** Memory in MiB. */
  readonly memoryMB: number;
  /** Disk in MiB. */
  readonly diskSizeMB: number;
}

/** E2B-specific state of one emulated sandbox. */
export interface E2BSandboxData {
  readonly templateId: string;
  /** What it was given, from its template (or its snapshot's source sandbox), reported by the detail and list. */
  readonly size: E2BTemplateSize;
  /** Environment set for every process, from `envVars` at create. */
  readonly envVars: Readonly<Record<string, string>>;
  /** Token envd requires in `X-Access-Token`. */
  readonly envdAccessToken: string;
  /**
   * Set for a private sandbox (`network.allowPublicTraffic: false`): every
   * request to one of its ports must carry it in `e2b-traffic-access-token`.
   */
  readonly trafficAccessToken: string | undefined;
  /** Egress rules as the create sent them (`allow_internet_access`, `network.allowOut`/`denyOut`). */
  readonly egress: E2BEgress;
  /** Whether ports are public (`network.allowPublicTraffic`, default true). */
  readonly allowPublicTraffic: boolean;
  /** What happens at `endAt`: pause (`autoPause`) or kill. */
  readonly autoPause: boolean;
  /** Epoch milliseconds. */
  startedAt: number;
  /** Epoch milliseconds at which the sandbox times out. */
  endAt: number;
  /** The backend sandbox that does the real work. */
  readonly handle: SandboxHandle;
  readonly processes: ProcessTable;
  expiryTimer: NodeJS.Timeout | undefined;
}

export type E2BSandbox = RegisteredSandbox<E2BSandboxData>;

/** What to create. */
export interface CreateSandboxInput {
  readonly templateId: string;
  readonly metadata: Record<string, string>;
  readonly envVars: Record<string, string>;
  readonly timeoutSeconds: number;
  readonly autoPause: boolean;
  /** Egress rules; the backend sandbox is launched with the port policy that enforces them. */
  readonly egress: E2BEgress;
  /** `false` makes the sandbox private: its ports need its traffic access token. */
  readonly allowPublicTraffic: boolean;
  readonly foreign: boolean;
  /** The snapshot to start from (its files copied into the new sandbox), when `templateID` names one. */
  readonly from?: E2BSnapshot;
}

/** The emulator's state and lifecycle operations, shared by its route modules. */
export interface E2BContext {
  readonly apiKey: string;
  readonly envdVersion: string;
  readonly pageSize: number;
  readonly backend: SandboxRuntime;
  readonly registry: SandboxRegistry<E2BSandboxData>;
  /** The emulated team's slug: the namespace of named snapshots (`<team>/<alias>:<tag>`). */
  readonly teamSlug: string;
  /** The team's snapshot templates, each a real snapshot of the backend. */
  readonly snapshots: SnapshotTable;
  /** The sizes a sandbox of `templateId` gets (a plain template name; a snapshot keeps its source's). */
  templateSize(templateId: string): E2BTemplateSize;
  createSandbox(input: CreateSandboxInput): Promise<E2BSandbox>;
  /**
   * A new sandbox copied from running `source` (the backend's `fork`: its files),
   * with its metadata, environment, network and lifecycle and a lifetime of
   * `timeoutSeconds`; the source keeps running, untouched.
   */
  forkSandbox(source: E2BSandbox, timeoutSeconds: number): Promise<E2BSandbox>;
  /** Remove the sandbox, kill its processes and destroy its backend workspace. */
  killSandbox(sandbox: E2BSandbox): Promise<void>;
  /** Kill its processes (memory is not kept) and keep its files. */
  pauseSandbox(sandbox: E2BSandbox): Promise<void>;
  /** Resume a paused sandbox for `timeoutSeconds`. */
  resumeSandbox(sandbox: E2BSandbox, timeoutSeconds: number): void;
  /** Move the sandbox's end of life and re-arm its timer. */
  setEndAt(sandbox: E2BSandbox, endAt: number): void;
}
