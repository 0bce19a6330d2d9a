import type { SandboxHandle, SandboxRuntime } from "@sandport/core";
import type { RequestLog } from "../harness/request-log.js";
import type { RegisteredSandbox, SandboxRegistry } from "../harness/sandbox-registry.js";
import type { ExecTable } from "./exec-table.js";

/** Lifecycle status as the cloud reports it. The emulator uses `running` and `stopped`. */
export type CloudSandboxStatus = "created" | "starting" | "running" | "stopping" | "stopped" | "failed";

/** What the sandbox was created with, as accepted from the create body. */
export interface MicrosandboxSpec {
  /** OCI image reference (recorded; commands run on the backend whatever it says). */
  readonly image: string;
  readonly vcpus: number;
  readonly memoryMib: number;
  /** Environment for every command, in order. */
  readonly env: readonly { readonly key: string; readonly value: string }[];
  /** Default working directory of commands (guest path), or `null` for `/`. */
  readonly workdir: string | null;
  /** `runtime` as sent (shell, scripts, entrypoint, cmd, user, log level), echoed in the spec projection. */
  readonly runtime: Readonly<Record<string, unknown>>;
  readonly networkEnabled: boolean;
  readonly ephemeral: boolean;
  readonly maxDurationSecs: number | null;
  readonly idleTimeoutSecs: number | null;
}

/** Microsandbox-specific state of one emulated sandbox. */
export interface MicrosandboxSandboxData {
  /** Unique per organisation; the SDK addresses sandboxes by name. */
  readonly name: string;
  readonly slug: string;
  readonly spec: MicrosandboxSpec;
  /** Epoch milliseconds. */
  startedAt: number | null;
  /** Epoch milliseconds. */
  stoppedAt: number | null;
  /** The backend sandbox that holds the files and runs the commands. */
  readonly handle: SandboxHandle;
  /** Commands running in the sandbox. */
  readonly executions: ExecTable;
  /** Fires at `max_duration_secs` after a start. */
  lifetimeTimer: NodeJS.Timeout | undefined;
  /** Fires after `idle_timeout_secs` without agent traffic or running commands. */
  idleTimer: NodeJS.Timeout | undefined;
}

/** One emulated sandbox; its `state` is its {@link CloudSandboxStatus}. */
export type MicrosandboxSandbox = RegisteredSandbox<MicrosandboxSandboxData>;

/** One agent operation: the first message of a session on the agent relay. */
export interface MicrosandboxAgentOperation {
  readonly sandboxId: string;
  readonly sandboxName: string;
  /** `"core.exec.request"`, or `"core.fs.request <Operation>"` (`"core.fs.request OpenFile"`). */
  readonly operation: string;
}

/** The create request, validated. */
export interface CreateSandboxInput {
  readonly name: string;
  readonly labels: Record<string, string>;
  readonly spec: MicrosandboxSpec;
  readonly foreign: boolean;
}

/** The emulator's state and lifecycle operations, shared by its route modules. */
export interface MicrosandboxContext {
  readonly apiKey: string;
  readonly orgId: string;
  readonly pageSize: number;
  readonly backend: SandboxRuntime;
  readonly registry: SandboxRegistry<MicrosandboxSandboxData>;
  readonly log: RequestLog;
  /** Agent operations received, in order; see `MicrosandboxEmulator.agentOperations`. */
  recordAgentOperation(sandbox: MicrosandboxSandbox, operation: string): void;
  /** The live sandbox with this name. */
  byName(name: string): MicrosandboxSandbox | undefined;
  /** Create (and start) a sandbox. Rejects a taken name with {@link NameTakenError}. */
  createSandbox(input: CreateSandboxInput): Promise<MicrosandboxSandbox>;
  /** Stop: kill its commands, keep its files. An ephemeral sandbox is removed shortly after. */
  stopSandbox(sandbox: MicrosandboxSandbox): Promise<void>;
  /** Start a stopped sandbox again. */
  startSandbox(sandbox: MicrosandboxSandbox): void;
  /** Remove the sandbox, kill its commands and destroy its backend workspace. */
  removeSandbox(sandbox: MicrosandboxSandbox): Promise<void>;
  /** Note agent traffic, which resets the idle timer. */
  touch(sandbox: MicrosandboxSandbox): void;
}

/** The name is already used by a live sandbox. */
export class NameTakenError extends Error {
  constructor(name: string) {
    super(`'${name}' already exists`);
    this.name = "NameTakenError";
  }
}
