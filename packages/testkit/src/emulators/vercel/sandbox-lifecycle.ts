/**
 * The life of emulated sandboxes: create, sessions that stop (by request or
 * timeout) and resume, delete. Each sandbox's changes run one at a time.
 *
 * @module
 */

import type { NetworkPolicy, SandboxHandle, SandboxRuntime } from "@sandport/core";
import { destroyBackendSandbox } from "../harness/backend.js";
import { randomToken, SandboxRegistry } from "../harness/sandbox-registry.js";
import { CommandTable } from "./command-table.js";
import type { CreateSandboxInput, VercelSandbox, VercelSandboxData, VercelSession } from "./context.js";
import { backendPolicy } from "./network-policy.js";

const LAUNCH_TIMEOUT_MS = 120_000;
const DESTROY_TIMEOUT_MS = 60_000;
/** How a stream following a command ends when the session stops under it. */
const STOPPED = { code: "sandbox_stopped", message: "Sandbox has stopped execution and is no longer available" };

/** The sandboxes of one emulator (one project) and every change to them. */
export class SandboxLifecycle {
  /** Live sandboxes by name. */
  readonly registry = new SandboxRegistry<VercelSandboxData>();
  readonly #backend: SandboxRuntime;
  readonly #projectId: string;
  readonly #pendingNames = new Set<string>();
  /** Every session by id; the sessions of a deleted sandbox are pruned. */
  readonly #sessions = new Map<string, VercelSession>();
  /** Per sandbox, the tail of its queue of lifecycle changes (stop, resume, delete), which never overlap. */
  readonly #queues = new WeakMap<VercelSandbox, Promise<unknown>>();
  #closed = false;

  constructor(backend: SandboxRuntime, projectId: string) {
    this.#backend = backend;
    this.#projectId = projectId;
  }

  /** Reserve a name while its sandbox is being created; false when it is taken. */
  reserveName(name: string): boolean {
    if (this.registry.get(name) || this.#pendingNames.has(name)) return false;
    this.#pendingNames.add(name);
    return true;
  }

  /** Release a reservation (the create failed). */
  releaseName(name: string): void {
    this.#pendingNames.delete(name);
  }

  /** Launch a backend workspace and start the sandbox's first session. The name must be reserved. */
  async create(input: CreateSandboxInput): Promise<VercelSandbox> {
    if (this.#closed) throw new Error("the emulator is stopping");
    const workspace = await this.#launch(backendPolicy(input.networkPolicy), input.ports);
    if (this.#closed) {
      await destroyBackendSandbox(this.#backend, workspace.handle, DESTROY_TIMEOUT_MS).catch(() => undefined);
      throw new Error("the emulator is stopping");
    }
    const now = Date.now();
    const sandbox: VercelSandbox = {
      id: input.name,
      metadata: { ...input.tags },
      foreign: input.foreign,
      state: "running",
      createdAt: now,
      data: {
        projectId: this.#projectId,
        persistent: input.persistent,
        region: input.region,
        failoverRegions: input.failoverRegions,
        vcpus: input.vcpus,
        timeout: input.timeout,
        networkPolicy: input.networkPolicy,
        ports: input.ports,
        previewToken: randomToken(16),
        env: input.env,
        image: input.image,
        runtime: input.runtime,
        updatedAt: now,
        statusUpdatedAt: now,
        session: this.#newSession(input.name, input.timeout, input.vcpus, input.region),
        handle: workspace.handle,
        workspacePath: workspace.path,
      },
    };
    this.registry.add(sandbox);
    this.releaseName(input.name);
    this.#armExpiry(sandbox, sandbox.data.session);
    return sandbox;
  }

  /** A session by id with its sandbox; `undefined` for unknown ids and deleted sandboxes. */
  findSession(id: string): { sandbox: VercelSandbox; session: VercelSession } | undefined {
    const session = this.#sessions.get(id);
    const sandbox = session && this.registry.get(session.sandboxName);
    return session && sandbox ? { sandbox, session } : undefined;
  }

  /** Stop the current session: kill its commands; a non-persistent sandbox also loses its workspace. */
  stop(sandbox: VercelSandbox): Promise<void> {
    return this.#serialize(sandbox, async () => {
      const session = sandbox.data.session;
      if (session.status !== "running") return;
      const now = Date.now();
      session.status = "stopped";
      session.stoppedAt = now;
      session.updatedAt = now;
      clearTimeout(session.expiryTimer);
      sandbox.state = "stopped";
      sandbox.data.statusUpdatedAt = now;
      sandbox.data.updatedAt = now;
      await session.commands.interruptAll(STOPPED);
      if (!sandbox.data.persistent) await this.#releaseWorkspace(sandbox);
    });
  }

  /** Start a new session on a stopped sandbox (with its files when persistent, a fresh workspace otherwise). */
  resume(sandbox: VercelSandbox): Promise<void> {
    return this.#serialize(sandbox, async () => {
      if (sandbox.data.session.status === "running" || this.registry.get(sandbox.id) !== sandbox) return;
      const data = sandbox.data;
      if (!data.handle) {
        const workspace = await this.#launch(backendPolicy(data.networkPolicy), data.ports);
        data.handle = workspace.handle;
        data.workspacePath = workspace.path;
      }
      data.session = this.#newSession(sandbox.id, data.timeout, data.vcpus, data.region);
      sandbox.state = "running";
      data.statusUpdatedAt = data.session.startedAt;
      data.updatedAt = data.session.startedAt;
      this.#armExpiry(sandbox, data.session);
    });
  }

  /** Forget the sandbox and its sessions, stop it and destroy its backend workspace. */
  async delete(sandbox: VercelSandbox): Promise<void> {
    if (!this.registry.delete(sandbox.id)) return;
    await this.stop(sandbox);
    await this.#serialize(sandbox, async () => {
      for (const [id, session] of this.#sessions) if (session.sandboxName === sandbox.id) this.#sessions.delete(id);
      await this.#releaseWorkspace(sandbox);
    });
  }

  /** Give a running session `durationMs` more life and re-arm its timer. */
  extend(session: VercelSession, durationMs: number): void {
    session.timeout += durationMs;
    session.updatedAt = Date.now();
    const sandbox = this.registry.get(session.sandboxName);
    if (sandbox) this.#armExpiry(sandbox, session);
  }

  /** Refuse new sandboxes and delete every existing one. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.allSettled(this.registry.all().map((sandbox) => this.delete(sandbox)));
  }

  /**
   * Launch a backend sandbox (declaring the ports, so a backend without
   * network still forwards them) and learn where its workspace is as commands see it.
   */
  async #launch(network: NetworkPolicy, ports: readonly number[]): Promise<{ handle: SandboxHandle; path: string }> {
    const spec = ports.length > 0 ? { network, ports } : { network };
    const handle = await this.#backend.launch(spec, { timeoutMs: LAUNCH_TIMEOUT_MS });
    try {
      const result = await this.#backend.exec(handle, { argv: ["pwd"] }, { timeoutMs: LAUNCH_TIMEOUT_MS });
      const path = result.stdout.trim();
      if (result.exitCode !== 0 || !path.startsWith("/")) {
        throw new Error(`could not locate the workspace (pwd exited ${result.exitCode}: ${result.stderr.trim()})`);
      }
      return { handle, path };
    } catch (error) {
      await destroyBackendSandbox(this.#backend, handle, DESTROY_TIMEOUT_MS).catch(() => undefined);
      throw error;
    }
  }

  async #releaseWorkspace(sandbox: VercelSandbox): Promise<void> {
    const handle = sandbox.data.handle;
    sandbox.data.handle = undefined;
    sandbox.data.workspacePath = undefined;
    if (handle) await destroyBackendSandbox(this.#backend, handle, DESTROY_TIMEOUT_MS);
  }

  #newSession(sandboxName: string, timeout: number, vcpus: number, region: string): VercelSession {
    const now = Date.now();
    const session: VercelSession = {
      id: `sbx_${randomToken(24)}`,
      sandboxName,
      status: "running",
      startedAt: now,
      stoppedAt: undefined,
      updatedAt: now,
      timeout,
      vcpus,
      region,
      commands: new CommandTable(),
      expiryTimer: undefined,
    };
    this.#sessions.set(session.id, session);
    return session;
  }

  /** Stop the session once its lifetime (`startedAt + timeout`) has passed. */
  #armExpiry(sandbox: VercelSandbox, session: VercelSession): void {
    clearTimeout(session.expiryTimer);
    if (session.status !== "running") return;
    const timer = setTimeout(
      () => {
        if (sandbox.data.session === session) this.stop(sandbox).catch(() => undefined);
      },
      Math.max(0, session.startedAt + session.timeout - Date.now()),
    );
    timer.unref();
    session.expiryTimer = timer;
  }

  /** Run one lifecycle change of a sandbox after the ones already queued for it. */
  #serialize<T>(sandbox: VercelSandbox, change: () => Promise<T>): Promise<T> {
    const previous = this.#queues.get(sandbox) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(change);
    this.#queues.set(sandbox, next);
    return next;
  }
}
