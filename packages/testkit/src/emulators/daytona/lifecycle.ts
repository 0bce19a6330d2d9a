/**
 * How emulated sandboxes move between Daytona states. Every change is
 * asynchronous, as on the real service: the sandbox enters the transitional
 * state (`creating`, `starting`, `stopping`, `destroying`) at once and settles
 * once the backend work is done (plus `transitionDelayMs`); the API routes
 * decide whether to wait for that before answering. A failed launch leaves the
 * sandbox in state `error` with the backend's message as `errorReason`.
 *
 * @module
 */

import { randomUUID } from "node:crypto";
import type { SandboxRuntime } from "@sandport/core";
import { destroyBackendSandbox } from "../harness/backend.js";
import { delay } from "../harness/http-server.js";
import type { SandboxRegistry } from "../harness/sandbox-registry.js";
import type {
  CreateSandboxInput,
  DaytonaSandbox,
  DaytonaSandboxClass,
  DaytonaSandboxData,
  DaytonaState,
} from "./context.js";
import { messageOf } from "./errors.js";
import { backendNetwork } from "./network-lists.js";
import { SessionTable } from "./session-table.js";
import type { SnapshotTable } from "./snapshot-table.js";

const LAUNCH_TIMEOUT_MS = 120_000;
const DESTROY_TIMEOUT_MS = 60_000;
/** The snapshot a sandbox created without snapshot or image reports. */
export const DEFAULT_SNAPSHOT = "daytonaio/sandbox:0.5.0";
/** Minutes: the API's default auto-stop (15 min) and auto-archive (7 days) intervals, and the archive ceiling (30 days). */
const DEFAULT_AUTO_STOP = 15;
const DEFAULT_AUTO_ARCHIVE = 7 * 24 * 60;
const MAX_AUTO_ARCHIVE = 30 * 24 * 60;

/** The API's rule for an auto-archive interval in minutes: 0 means the longest, and none is longer. */
export function resolveAutoArchiveInterval(minutes: number): number {
  return minutes === 0 ? MAX_AUTO_ARCHIVE : Math.min(minutes, MAX_AUTO_ARCHIVE);
}

/** Settings of a {@link SandboxLifecycle}. */
export interface LifecycleSettings {
  readonly backend: SandboxRuntime;
  readonly registry: SandboxRegistry<DaytonaSandboxData>;
  readonly defaultTarget: string;
  /** The class every created sandbox reports (a fork reports its source's). */
  readonly sandboxClass: DaytonaSandboxClass;
  readonly transitionDelayMs: number;
}

/** What differs between the sandboxes {@link SandboxLifecycle} registers: everything but name, state and bookkeeping. */
type RegisteredFields = Pick<
  DaytonaSandboxData,
  | "snapshot"
  | "buildInfo"
  | "user"
  | "env"
  | "public"
  | "networkBlockAll"
  | "networkAllowList"
  | "domainAllowList"
  | "target"
  | "sandboxClass"
  | "resources"
  | "autoStopInterval"
  | "autoArchiveInterval"
  | "autoDeleteInterval"
>;

/** The state a transition settles in when its work is done, whatever came of it. */
const started = (): DaytonaState => "started";

/** Creates, starts, stops and destroys emulated sandboxes on the backend. */
export class SandboxLifecycle {
  readonly #settings: LifecycleSettings;
  /** Aborted when the emulator stops, so pending transition delays end at once. */
  readonly #closing = new AbortController();

  constructor(settings: LifecycleSettings) {
    this.#settings = settings;
  }

  /** Register a sandbox in state `creating` and launch it in the background. Throws when the name is taken. */
  create(input: CreateSandboxInput): DaytonaSandbox {
    const { backend } = this.#settings;
    const sandbox = this.#register(input.name, input.labels, input.foreign, {
      snapshot: input.buildInfo ? undefined : (input.snapshot ?? DEFAULT_SNAPSHOT),
      buildInfo: input.buildInfo,
      user: input.user ?? "daytona",
      env: { ...input.env },
      public: input.public,
      networkBlockAll: input.networkBlockAll,
      networkAllowList: input.networkAllowList,
      domainAllowList: input.domainAllowList,
      target: input.target || this.#settings.defaultTarget,
      sandboxClass: this.#settings.sandboxClass,
      resources: { cpu: 1, gpu: 0, memory: 1, disk: 3, ...input.resources },
      autoStopInterval: input.autoStopInterval ?? DEFAULT_AUTO_STOP,
      autoArchiveInterval: resolveAutoArchiveInterval(input.autoArchiveInterval ?? DEFAULT_AUTO_ARCHIVE),
      autoDeleteInterval: input.autoDeleteInterval ?? -1,
    });
    this.#transition(sandbox, "creating", async () => {
      const from = input.from?.backend;
      sandbox.data.handle = await backend.launch(
        { network: backendNetwork(input), ...(from === undefined ? {} : { from }) },
        { timeoutMs: LAUNCH_TIMEOUT_MS, signal: this.#closing.signal },
      );
      return "started";
    });
    return sandbox;
  }

  /**
   * Register a fork of a started `source` in state `creating`, with what the
   * API's `forkSandbox` copies (class, snapshot, user, env, labels,
   * resources, visibility, target, the intervals, `networkBlockAll` and
   * `networkAllowList`; not `domainAllowList`, nor a build). The source is
   * `forking` until the backend's own fork of its sandbox (a copy of its
   * files) is done, then `started` again, whether the copy worked or not; the
   * fork settles `started`, or `error` with the backend's reason. Throws when the name is taken.
   */
  fork(source: DaytonaSandbox, name: string | undefined): DaytonaSandbox {
    const { backend } = this.#settings;
    const from = source.data;
    const fork = this.#register(name, source.metadata, source.foreign, {
      snapshot: from.snapshot,
      buildInfo: undefined,
      user: from.user,
      env: { ...from.env },
      public: from.public,
      networkBlockAll: from.networkBlockAll,
      networkAllowList: from.networkAllowList,
      domainAllowList: undefined,
      target: from.target,
      sandboxClass: from.sandboxClass,
      resources: { ...from.resources },
      autoStopInterval: from.autoStopInterval,
      autoArchiveInterval: from.autoArchiveInterval,
      autoDeleteInterval: from.autoDeleteInterval,
    });
    const handle = from.handle;
    const copy = (async () => {
      if (!handle) throw new Error("the source sandbox has no workspace");
      if (backend.fork === undefined) throw new Error("the emulator's backend runtime cannot fork");
      return backend.fork(handle, { timeoutMs: LAUNCH_TIMEOUT_MS, signal: this.#closing.signal });
    })();
    // The source is back in its state once the copy ended, failed or not (the API rolls it back).
    this.#transition(source, "forking", () => copy.then(started, started));
    this.#transition(fork, "creating", async () => {
      fork.data.handle = await copy;
      return "started";
    });
    return fork;
  }

  /** A new sandbox in state `creating`, registered under a fresh id and `name` (else the id). Throws when the name is taken. */
  #register(
    name: string | undefined,
    labels: Readonly<Record<string, string>>,
    foreign: boolean,
    fields: RegisteredFields,
  ): DaytonaSandbox {
    if (this.#closing.signal.aborted) throw new Error("the emulator is stopping");
    const { registry } = this.#settings;
    let id = randomUUID();
    while (registry.get(id)) id = randomUUID();
    const unique = name ?? id;
    if (registry.all().some((sandbox) => sandbox.data.name === unique)) {
      throw new Error(`Sandbox with name ${unique} already exists`);
    }
    const now = Date.now();
    const sandbox: DaytonaSandbox = {
      id,
      metadata: { ...labels },
      foreign,
      state: "creating",
      createdAt: now,
      data: {
        ...fields,
        name: unique,
        desiredState: "started",
        errorReason: undefined,
        updatedAt: now,
        lastActivityAt: now,
        handle: undefined,
        transition: undefined,
        sessions: new SessionTable(),
        ptys: new Map(),
        commands: new Set(),
      },
    };
    registry.add(sandbox);
    return sandbox;
  }

  /** `stopped` → `starting` → `started`. The workspace was kept, so nothing else happens. */
  start(sandbox: DaytonaSandbox): void {
    sandbox.data.desiredState = "started";
    this.#transition(sandbox, "starting", async () => "started");
  }

  /** `started` → `stopping` → `stopped` (or destroyed when `autoDeleteInterval` is 0): processes die, files stay. */
  stop(sandbox: DaytonaSandbox): void {
    const ephemeral = sandbox.data.autoDeleteInterval === 0;
    sandbox.data.desiredState = ephemeral ? "destroyed" : "stopped";
    this.#transition(sandbox, "stopping", async () => {
      await this.#killProcesses(sandbox);
      if (!ephemeral) return "stopped";
      await this.#destroyWorkspace(sandbox);
      return "destroyed";
    });
  }

  /** `started` → `snapshotting` → `started`: the backend's snapshot of the running sandbox, kept in `table` as `name`. */
  snapshot(sandbox: DaytonaSandbox, name: string, table: SnapshotTable): void {
    this.#transition(sandbox, "snapshotting", async () => {
      const handle = sandbox.data.handle;
      if (!handle) throw new Error("the sandbox has no workspace");
      await table.take({ id: sandbox.id, handle }, name);
      return "started";
    });
  }

  /** Any state → `destroying` → gone (the API answers 404 from then on). */
  delete(sandbox: DaytonaSandbox): void {
    sandbox.data.desiredState = "destroyed";
    this.#transition(sandbox, "destroying", async () => {
      await this.#killProcesses(sandbox);
      await this.#destroyWorkspace(sandbox);
      return "destroyed";
    });
  }

  /** Stop accepting work, let pending transitions end, then destroy every sandbox. */
  async destroyAll(): Promise<void> {
    this.#closing.abort(new Error("the emulator is stopping"));
    const sandboxes = this.#settings.registry.all();
    await Promise.allSettled(
      sandboxes.map(async (sandbox) => {
        await sandbox.data.transition;
        await this.#killProcesses(sandbox);
        await this.#destroyWorkspace(sandbox);
        this.#settings.registry.delete(sandbox.id);
      }),
    );
  }

  async #killProcesses(sandbox: DaytonaSandbox): Promise<void> {
    for (const controller of sandbox.data.commands) controller.abort(new Error("the sandbox is stopping"));
    for (const pty of sandbox.data.ptys.values()) pty.abort();
    await sandbox.data.sessions.clear();
  }

  async #destroyWorkspace(sandbox: DaytonaSandbox): Promise<void> {
    const handle = sandbox.data.handle;
    sandbox.data.handle = undefined;
    if (handle) await destroyBackendSandbox(this.#settings.backend, handle, DESTROY_TIMEOUT_MS);
  }

  /** Enter `state` now; run `work` in the background and settle in the state it returns. */
  #transition(sandbox: DaytonaSandbox, state: DaytonaState, work: () => Promise<DaytonaState | "destroyed">): void {
    const { registry, transitionDelayMs } = this.#settings;
    sandbox.state = state;
    sandbox.data.updatedAt = Date.now();
    sandbox.data.transition = (async () => {
      try {
        const next = await work();
        if (transitionDelayMs > 0) await delay(transitionDelayMs, this.#closing.signal);
        if (registry.get(sandbox.id) !== sandbox) return;
        if (next === "destroyed") registry.delete(sandbox.id);
        else sandbox.state = next;
      } catch (error) {
        sandbox.state = "error";
        sandbox.data.errorReason = messageOf(error);
      } finally {
        sandbox.data.updatedAt = Date.now();
        sandbox.data.transition = undefined;
      }
    })();
  }
}
