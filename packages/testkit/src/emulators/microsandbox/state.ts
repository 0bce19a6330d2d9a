/**
 * The emulator's sandboxes and their lifecycle: create on the backend, start,
 * stop (commands killed, files kept; ephemeral sandboxes removed), remove,
 * and the `max_duration_secs` / `idle_timeout_secs` timers that stop a sandbox.
 *
 * @module
 */

import { randomBytes, randomUUID } from "node:crypto";
import type { SandboxRuntime } from "@sandport/core";
import { destroyBackendSandbox } from "../harness/backend.js";
import type { RequestLog } from "../harness/request-log.js";
import type { SandboxRegistry } from "../harness/sandbox-registry.js";
import {
  type CreateSandboxInput,
  type MicrosandboxAgentOperation,
  type MicrosandboxContext,
  type MicrosandboxSandbox,
  type MicrosandboxSandboxData,
  NameTakenError,
} from "./context.js";
import { ExecTable } from "./exec-table.js";
import { toWorkspaceRelative } from "./paths.js";

/** The guest's `/tmp`, as a workspace-relative path of the backend: an image always has it. */
const GUEST_TMP = "tmp";

const LAUNCH_TIMEOUT_MS = 120_000;
const DESTROY_TIMEOUT_MS = 60_000;
/**
 * An ephemeral sandbox disappears shortly after it stopped, not at once: the
 * SDK's `stop()` looks the sandbox up again right after the stop call.
 */
const EPHEMERAL_REMOVAL_DELAY_MS = 500;

/** What {@link MicrosandboxState} is built from. */
export interface MicrosandboxStateSettings {
  readonly apiKey: string;
  readonly orgId: string;
  readonly pageSize: number;
  readonly backend: SandboxRuntime;
  readonly registry: SandboxRegistry<MicrosandboxSandboxData>;
  readonly log: RequestLog;
}

/** The {@link MicrosandboxContext} every route module works on. */
export class MicrosandboxState implements MicrosandboxContext {
  readonly apiKey: string;
  readonly orgId: string;
  readonly pageSize: number;
  readonly backend: SandboxRuntime;
  readonly registry: SandboxRegistry<MicrosandboxSandboxData>;
  readonly log: RequestLog;
  readonly agentOperations: MicrosandboxAgentOperation[] = [];
  /** Set once the emulator stops: no sandbox is created after that. */
  stopping = false;
  /** Names being created, so that two concurrent creates of one name cannot both win. */
  readonly #reservedNames = new Set<string>();

  constructor(settings: MicrosandboxStateSettings) {
    this.apiKey = settings.apiKey;
    this.orgId = settings.orgId;
    this.pageSize = settings.pageSize;
    this.backend = settings.backend;
    this.registry = settings.registry;
    this.log = settings.log;
  }

  recordAgentOperation(sandbox: MicrosandboxSandbox, operation: string): void {
    this.agentOperations.push({ sandboxId: sandbox.id, sandboxName: sandbox.data.name, operation });
  }

  byName(name: string): MicrosandboxSandbox | undefined {
    return this.registry.all().find((sandbox) => sandbox.data.name === name);
  }

  async createSandbox(input: CreateSandboxInput): Promise<MicrosandboxSandbox> {
    if (this.stopping) throw new Error("the emulator is stopping");
    if (this.byName(input.name) || this.#reservedNames.has(input.name)) throw new NameTakenError(input.name);
    this.#reservedNames.add(input.name);
    try {
      const handle = await this.backend.launch(
        { network: input.spec.networkEnabled },
        { timeoutMs: LAUNCH_TIMEOUT_MS },
      );
      const sandbox: MicrosandboxSandbox = {
        id: randomUUID(),
        metadata: input.labels,
        foreign: input.foreign,
        state: "created",
        createdAt: Date.now(),
        data: {
          name: input.name,
          slug: `${input.name
            .toLowerCase()
            .replace(/[^a-z0-9]+/g, "-")
            .slice(0, 40)}-${randomBytes(3).toString("hex")}`,
          spec: input.spec,
          startedAt: null,
          stoppedAt: null,
          handle,
          executions: new ExecTable(),
          lifetimeTimer: undefined,
          idleTimer: undefined,
        },
      };
      try {
        const workdir = input.spec.workdir === null ? "" : toWorkspaceRelative(input.spec.workdir);
        // Every image has a /tmp (a command's cwd may be any guest directory), and the workdir exists once it runs.
        for (const directory of [GUEST_TMP, workdir]) {
          if (directory !== "" && this.backend.mkdir) {
            await this.backend.mkdir(handle, directory, { timeoutMs: LAUNCH_TIMEOUT_MS });
          }
        }
        if (this.stopping) throw new Error("the emulator is stopping");
      } catch (error) {
        await destroyBackendSandbox(this.backend, handle, DESTROY_TIMEOUT_MS).catch(() => undefined);
        throw error;
      }
      this.registry.add(sandbox);
      return sandbox;
    } finally {
      this.#reservedNames.delete(input.name);
    }
  }

  startSandbox(sandbox: MicrosandboxSandbox): void {
    sandbox.state = "running";
    sandbox.data.startedAt = Date.now();
    sandbox.data.stoppedAt = null;
    const maxDuration = sandbox.data.spec.maxDurationSecs;
    if (maxDuration !== null) {
      sandbox.data.lifetimeTimer = unrefTimer(() => this.#stopQuietly(sandbox), maxDuration * 1000);
    }
    this.touch(sandbox);
  }

  touch(sandbox: MicrosandboxSandbox): void {
    const idleTimeout = sandbox.data.spec.idleTimeoutSecs;
    if (idleTimeout === null || sandbox.state !== "running") return;
    clearTimeout(sandbox.data.idleTimer);
    sandbox.data.idleTimer = unrefTimer(() => {
      // A command still running is activity.
      if (sandbox.data.executions.size > 0) this.touch(sandbox);
      else this.#stopQuietly(sandbox);
    }, idleTimeout * 1000);
  }

  async stopSandbox(sandbox: MicrosandboxSandbox): Promise<void> {
    this.#clearTimers(sandbox);
    sandbox.state = "stopped";
    sandbox.data.stoppedAt = Date.now();
    await sandbox.data.executions.killAll();
    if (sandbox.data.spec.ephemeral) {
      // A failed workspace cleanup has no caller to report to.
      unrefTimer(() => this.removeSandbox(sandbox).catch(() => undefined), EPHEMERAL_REMOVAL_DELAY_MS);
    }
  }

  async removeSandbox(sandbox: MicrosandboxSandbox): Promise<void> {
    if (this.registry.get(sandbox.id) !== sandbox) return;
    this.registry.delete(sandbox.id);
    this.#clearTimers(sandbox);
    sandbox.state = "stopped";
    sandbox.data.stoppedAt ??= Date.now();
    await sandbox.data.executions.killAll();
    await destroyBackendSandbox(this.backend, sandbox.data.handle, DESTROY_TIMEOUT_MS);
  }

  #stopQuietly(sandbox: MicrosandboxSandbox): void {
    if (this.registry.get(sandbox.id) !== sandbox || sandbox.state !== "running") return;
    // A timer has no caller to report a failed workspace cleanup to.
    this.stopSandbox(sandbox).catch(() => undefined);
  }

  #clearTimers(sandbox: MicrosandboxSandbox): void {
    clearTimeout(sandbox.data.lifetimeTimer);
    clearTimeout(sandbox.data.idleTimer);
    sandbox.data.lifetimeTimer = undefined;
    sandbox.data.idleTimer = undefined;
  }
}

function unrefTimer(callback: () => void, ms: number): NodeJS.Timeout {
  const timer = setTimeout(callback, ms);
  timer.unref();
  return timer;
}
