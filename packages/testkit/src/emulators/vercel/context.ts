import type { SandboxHandle, SandboxRuntime } from "@sandport/core";
import type { RegisteredSandbox, SandboxRegistry } from "../harness/sandbox-registry.js";
import type { CommandTable } from "./command-table.js";
import type { ReportedNetworkPolicy } from "./network-policy.js";
import type { SandboxLifecycle } from "./sandbox-lifecycle.js";

/** Session states the emulator produces (the API also knows pending, stopping, failed, aborted, snapshotting). */
export type SessionStatus = "running" | "stopped";

/**
 * One session: a period in which the sandbox runs (one VM on Vercel). A stop
 * ends it for good; resuming starts a new session with a new id.
 */
export interface VercelSession {
  readonly id: string;
  readonly sandboxName: string;
  status: SessionStatus;
  /** Epoch milliseconds. */
  readonly startedAt: number;
  /** Epoch milliseconds, once stopped. */
  stoppedAt: number | undefined;
  /** Epoch milliseconds. */
  updatedAt: number;
  /** Lifetime in milliseconds from `startedAt`; `extend-timeout` adds to it. */
  timeout: number;
  readonly vcpus: number;
  readonly region: string;
  readonly commands: CommandTable;
  expiryTimer: NodeJS.Timeout | undefined;
}

/** Vercel-specific state of one emulated sandbox; the registry id is its name. */
export interface VercelSandboxData {
  readonly projectId: string;
  /** Whether the filesystem survives a stop (the default). */
  readonly persistent: boolean;
  readonly region: string;
  readonly failoverRegions: readonly string[] | undefined;
  readonly vcpus: number;
  /** Default session lifetime in milliseconds. */
  readonly timeout: number;
  /** The network policy as Vercel reports it; the backend sandbox enforces its port equivalent. */
  readonly networkPolicy: ReportedNetworkPolicy;
  /** Declared ports, each reachable at its preview host (see `exposed-ports.ts`). */
  readonly ports: readonly number[];
  /** Random token in the preview hosts of this sandbox's ports (`sb-<token>-<port>.vercel.run`). */
  readonly previewToken: string;
  /** Environment for every command, from `env` at create. */
  readonly env: Readonly<Record<string, string>>;
  readonly image: string | undefined;
  readonly runtime: string | undefined;
  /** Epoch milliseconds. */
  updatedAt: number;
  /** Epoch milliseconds of the last session start or stop. */
  statusUpdatedAt: number;
  /** The current (latest) session. */
  session: VercelSession;
  /** The backend sandbox; absent between the sessions of a non-persistent sandbox. */
  handle: SandboxHandle | undefined;
  /** Where the backend workspace is as commands see it (a host directory, or `/workspace` under isolation). */
  workspacePath: string | undefined;
}

/** An emulated sandbox in the registry: its id is its name, its metadata its tags. */
export type VercelSandbox = RegisteredSandbox<VercelSandboxData>;

/** What to create. */
export interface CreateSandboxInput {
  readonly name: string;
  readonly persistent: boolean;
  readonly region: string;
  readonly failoverRegions: readonly string[] | undefined;
  readonly vcpus: number;
  readonly timeout: number;
  /** The network policy as created (reported as Vercel reports it). */
  readonly networkPolicy: ReportedNetworkPolicy;
  readonly ports: readonly number[];
  readonly env: Readonly<Record<string, string>>;
  readonly tags: Record<string, string>;
  readonly image: string | undefined;
  readonly runtime: string | undefined;
  readonly foreign: boolean;
}

/** The emulator's settings and state, shared by its route modules. */
export interface VercelContext {
  /** The accepted bearer token. */
  readonly token: string;
  /** The one team the emulator serves (`?teamId=` on every request). */
  readonly teamId: string;
  /** The one project the emulator serves. */
  readonly projectId: string;
  /** Largest page `GET /v2/sandboxes` returns. */
  readonly pageSize: number;
  readonly backend: SandboxRuntime;
  /** Live sandboxes by name (the same registry as `sandboxes.registry`). */
  readonly registry: SandboxRegistry<VercelSandboxData>;
  /** Every lifecycle change: create, stop, resume, delete, extend. */
  readonly sandboxes: SandboxLifecycle;
}
