import { readdir } from "node:fs/promises";
import {
  invalidRequest,
  type Labels,
  type LaunchSpec,
  SandportError,
  sleep,
  unsupported,
  type ValidatedExecRequest,
} from "@sandport/core";
import { AsyncCommands } from "./async-commands.js";
import { probeBwrap } from "./bwrap.js";
import { probeCgroupHost } from "./cgroup-host.js";
import { createLeaf, createSandboxCgroups, removeSandboxCgroups, trackProcess } from "./cgroups.js";
import { killMarked, markedProcesses, sandboxPrefix } from "./command-marker.js";
import { planCommand, type SpawnPlan } from "./command-plan.js";
import { type LocalHandle, toHandle } from "./handle.js";
import { defaultRoot, LOCAL_PROVIDER, LOCAL_WORKSPACE_ROOT, type ResolvedLocalOptions } from "./options.js";
import { isAlive } from "./process-tree.js";
import type { RunningCommands } from "./running-commands.js";
import { RunningMarkers } from "./running-markers.js";
import { isExpired, matchesLabels, SANDBOX_RECORD_FORMAT, type SandboxRecord } from "./sandbox-record.js";
import { SandboxStore } from "./sandbox-store.js";
import { WorkspaceFiles } from "./workspace-files.js";

/**
 * The sandbox-level work behind `LocalRuntime`: launching, looking up, planning
 * commands and destroying, with the isolation and cgroup checks they need.
 */
export class SandboxAccess {
  readonly #options: ResolvedLocalOptions;
  readonly #running: RunningCommands;
  /** Records are immutable once written, so a record seen once is reused (deletion shows up as missing files). */
  readonly #records = new Map<string, SandboxRecord>();
  readonly #files = new Map<string, WorkspaceFiles>();
  #store: SandboxStore | undefined;

  /** @param running the runtime's registry of commands in flight, which `destroy` stops first */
  constructor(options: ResolvedLocalOptions, running: RunningCommands) {
    this.#options = options;
    this.#running = running;
  }

  /** The store, created on first use (resolving the default root reads the password database). */
  store(): SandboxStore {
    this.#store ??= new SandboxStore(this.#options.root ?? defaultRoot(), this.#options.owner);
    return this.#store;
  }

  /** Checks that `handle` is a local handle with a well-formed id, and returns the id. */
  checkHandle(handle: unknown): string {
    const candidate = handle as LocalHandle | null;
    if (typeof candidate !== "object" || candidate === null) {
      throw invalidRequest("handle must be a sandbox handle", { field: "handle" }, LOCAL_PROVIDER);
    }
    if (candidate.provider !== LOCAL_PROVIDER) {
      throw invalidRequest(
        `handle belongs to provider ${JSON.stringify(candidate.provider)}, not "local"`,
        {},
        LOCAL_PROVIDER,
      );
    }
    return SandboxStore.checkId(candidate.id);
  }

  /**
   * Creates a sandbox from a validated spec: refuses what cannot be honoured
   * (`UNSUPPORTED`), sets up its cgroups, writes it to disk. If `signal` fired
   * meanwhile (the caller was already told it failed), removes it again.
   */
  async launch(spec: LaunchSpec, signal: AbortSignal): Promise<LocalHandle> {
    const isolation = this.#options.isolation;
    if (spec.template !== undefined) {
      throw unsupported(LOCAL_PROVIDER, "templates", "commands run on the host's /usr; launch without a template");
    }
    if (isolation === "none" && spec.network === false) {
      throw unsupported(LOCAL_PROVIDER, "network: false", 'isolation "none" cannot keep commands off the network');
    }
    const resources = spec.resources && Object.keys(spec.resources).length > 0 ? spec.resources : undefined;
    if (resources && this.#options.cgroups === "disabled") {
      throw unsupported(LOCAL_PROVIDER, "resources", 'cgroups are disabled in the options (cgroups: "disabled")');
    }
    await this.requireIsolation();
    const id = SandboxStore.newId();
    const host = this.#options.cgroups === "auto" ? await probeCgroupHost() : { legacy: {} };
    const tracking = this.#options.cgroups === "auto";
    const cgroups = await createSandboxCgroups(host, id, resources ? { resources, tracking } : { tracking });
    const now = Date.now();
    const record: SandboxRecord = {
      format: SANDBOX_RECORD_FORMAT,
      id,
      owner: this.#options.owner,
      createdAt: new Date(now).toISOString(),
      labels: spec.labels ?? {},
      ...(spec.launchKey === undefined ? {} : { launchKey: spec.launchKey }),
      env: spec.env ?? {},
      network: spec.network ?? isolation === "none",
      ...(resources ? { resources } : {}),
      ...(spec.lifetimeMs === undefined ? {} : { expiresAt: new Date(now + spec.lifetimeMs).toISOString() }),
      ...(cgroups ? { cgroups } : {}),
    };
    try {
      await this.store().create(record);
    } catch (error) {
      await removeSandboxCgroups(cgroups);
      throw error;
    }
    if (signal.aborted) {
      // The caller has already been told the launch failed: leave nothing behind.
      await this.#destroyRecord(record).catch(() => {});
      throw signal.reason;
    }
    return toHandle(record, this.store().workspaceDirectory(id));
  }

  /** Refuses with `UNSUPPORTED` when namespaces are configured but bubblewrap cannot create them here. */
  async requireIsolation(): Promise<void> {
    if (this.#options.isolation !== "namespaces") return;
    const probe = await probeBwrap(this.#options.bwrapPath);
    if (probe.ok) return;
    throw unsupported(
      LOCAL_PROVIDER,
      'isolation "namespaces"',
      `bubblewrap cannot create namespaces here (${probe.reason}). Install bubblewrap and allow unprivileged ` +
        'user namespaces, or opt in to unisolated host processes with new LocalRuntime({ isolation: "none" })',
    );
  }

  /**
   * The record of a sandbox that must exist, be ours and be within its
   * lifetime. `fresh` re-reads it from disk (proving the sandbox still exists);
   * otherwise a record this instance has seen is reused.
   */
  async requireLive(id: string, fresh = true): Promise<SandboxRecord> {
    let record = fresh ? undefined : this.#records.get(id);
    if (!record) {
      record = await this.store().require(id);
      this.#records.set(id, record);
    }
    if (!isExpired(record)) return record;
    await this.#destroyRecord(record);
    return this.store().require(id);
  }

  /** File access to a live sandbox's workspace. The sandbox's existence is proven by the file operation itself. */
  async files(id: string): Promise<WorkspaceFiles> {
    await this.requireLive(id, false);
    let files = this.#files.get(id);
    if (!files) {
      files = new WorkspaceFiles(this.store().workspaceDirectory(id));
      this.#files.set(id, files);
    }
    return files;
  }

  /**
   * Makes a just-spawned command findable by `destroy` from any process, the
   * cheapest way available: a command in its own cgroup leaf already is; else
   * its leading process joins the sandbox's tracking cgroup; else a marker file
   * is written. Returns what undoes the registration when the command ends.
   */
  register(record: SandboxRecord, plan: SpawnPlan, pid: number): () => void {
    if (plan.leaf) return () => {};
    const tracking = this.#options.cgroups === "auto" ? record.cgroups?.tracking : undefined;
    if (tracking && trackProcess(tracking, pid)) return () => {};
    return this.markers(record.id).add(pid);
  }

  /** Markers of commands running in a sandbox. */
  markers(id: string): RunningMarkers {
    return new RunningMarkers(this.store().runningDirectory(id));
  }

  /** Handle of an owned, live sandbox; `undefined` when absent or expired; `FOREIGN_SANDBOX` when not ours. */
  async getById(rawId: unknown): Promise<LocalHandle | undefined> {
    const id = SandboxStore.checkId(rawId);
    const found = await this.store().read(id);
    if (found.state === "absent") return undefined;
    if (found.state === "foreign") {
      throw new SandportError({
        code: "FOREIGN_SANDBOX",
        provider: LOCAL_PROVIDER,
        message: `sandbox ${id} is not owned by this runtime: ${found.reason}`,
        details: { sandboxId: id },
      });
    }
    if (isExpired(found.record)) {
      await this.#destroyRecord(found.record);
      return undefined;
    }
    return toHandle(found.record, this.store().workspaceDirectory(id));
  }

  /** Handles of owned, live sandboxes carrying every label of `query` (reserved ones included). */
  async findByLabels(query: Labels): Promise<LocalHandle[]> {
    const handles: LocalHandle[] = [];
    for (const record of await this.store().list()) {
      if (!matchesLabels(record, query)) continue;
      if (isExpired(record)) {
        await this.#destroyRecord(record);
        continue;
      }
      handles.push(toHandle(record, this.store().workspaceDirectory(record.id)));
    }
    return handles;
  }

  /** Destroys an owned sandbox (absent is success; foreign is `FOREIGN_SANDBOX`). */
  async destroy(id: string): Promise<void> {
    // A record once seen is ours for good (records never change); only an unseen id needs reading.
    const cached = this.#records.get(id);
    if (cached) return this.#destroyRecord(cached);
    const found = await this.store().read(id);
    if (found.state === "absent") return;
    if (found.state === "foreign") {
      throw new SandportError({
        code: "FOREIGN_SANDBOX",
        provider: LOCAL_PROVIDER,
        message: `refusing to destroy sandbox ${id}: ${found.reason}`,
        details: { sandboxId: id },
      });
    }
    await this.#destroyRecord(found.record);
  }

  /**
   * Prepares one command: checks isolation, network and limits can be honoured,
   * that `cwd` exists inside the workspace, creates the command's cgroup leaf
   * (under `none`), and builds the spawn plan.
   */
  async planFor(record: SandboxRecord, request: ValidatedExecRequest): Promise<SpawnPlan> {
    const { isolation, cgroups } = this.#options;
    await this.requireIsolation();
    if (isolation === "none" && !record.network) {
      throw unsupported(
        LOCAL_PROVIDER,
        "network: false",
        `sandbox ${record.id} was launched without network, which isolation "none" cannot honour`,
      );
    }
    if (cgroups === "disabled" && (record.cgroups?.limits.length ?? 0) > 0) {
      throw unsupported(
        LOCAL_PROVIDER,
        "resources",
        `sandbox ${record.id} has resource limits but cgroups are disabled in the options`,
      );
    }
    const workspaceDirectory = this.store().workspaceDirectory(record.id);
    // Proves the sandbox still exists (the record may come from this instance's cache) and `cwd` is a directory.
    await (await this.files(record.id)).directory(request.cwd, true);
    const usable = cgroups === "auto" ? record.cgroups : undefined;
    const leaf = isolation === "none" ? createLeaf(usable) : undefined;
    return planCommand({
      isolation,
      bwrapPath: this.#options.bwrapPath,
      readOnlyPaths: this.#options.readOnlyPaths,
      workspaceDirectory,
      workspaceRoot: LOCAL_WORKSPACE_ROOT,
      record: usable === record.cgroups ? record : withoutCgroups(record),
      request,
      ...(leaf ? { leaf } : {}),
    });
  }

  /**
   * Stops everything running in the sandbox, then removes it:
   * 1. commands this instance runs (aborted, then awaited);
   * 2. async commands (their supervisors and process groups, from their records);
   * 3. commands other processes run there (from their markers in `running/`);
   * 4. everything in the sandbox's cgroups (`cgroup.kill`), which also catches `setsid` escapes under `none`;
   * 5. under `none`, where commands ran without a cgroup leaf (no tracking cgroup, or marker files in
   *    `running/`), every process whose `SANDPORT_LOCAL_COMMAND_ID` names this sandbox (one scan of `/proc`,
   *    about 1 ms per 100 host processes): what commands of a runtime process that died left running;
   * 6. the directory, proven gone. Any step that cannot be proven is `DESTROY_UNVERIFIED`.
   */
  async #destroyRecord(record: SandboxRecord): Promise<void> {
    const grace = this.#options.killGraceMs;
    const store = this.store();
    await this.#running.stopAll(record.id, grace + 2_000);
    this.#records.delete(record.id);
    this.#files.delete(record.id);
    // `commands/` and `running/` exist only once something used them.
    const present = new Set(await readdir(store.sandboxDirectory(record.id)).catch(() => [] as string[]));
    if (present.has("commands")) await new AsyncCommands(store.commandsDirectory(record.id)).stopAll(grace);
    const strays = present.has("running") ? await this.markers(record.id).killAll() : [];
    const deadline = Date.now() + 2_000;
    while (Date.now() < deadline && strays.some(isAlive)) await sleep(10);
    const cgroupsGone = await removeSandboxCgroups(record.cgroups);
    const marker = sandboxPrefix(record.id);
    const untracked = !record.cgroups?.tracking || present.has("running");
    const markedGone =
      this.#options.isolation !== "none" ||
      !untracked ||
      killMarked(marker, { prefix: true }).length === 0 ||
      (await until(() => markedProcesses(marker, { prefix: true }).length === 0, 2_000));
    if (!cgroupsGone || !markedGone || strays.some(isAlive)) {
      throw new SandportError({
        code: "DESTROY_UNVERIFIED",
        provider: LOCAL_PROVIDER,
        message: `could not prove every process of sandbox ${record.id} dead`,
        details: { sandboxId: record.id },
      });
    }
    await store.remove(record.id);
  }
}

/** Polls `predicate` every 10 ms until it holds (`true`) or `timeoutMs` passes (`false`). */
async function until(predicate: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) return false;
    await sleep(10);
  }
  return true;
}

function withoutCgroups(record: SandboxRecord): SandboxRecord {
  const { cgroups: _ignored, ...rest } = record;
  return rest;
}
