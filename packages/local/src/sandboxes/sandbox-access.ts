import {
  invalidRequest,
  type Labels,
  type PortEndpoint,
  SandportError,
  unsupported,
  type ValidatedExecRequest,
  type ValidatedLaunchSpec,
} from "@sandport/core";
import { checkHandle, foreignSandbox } from "@sandport/core/adapter";
import { probeCgroupHost } from "../cgroups/cgroup-host.js";
import { noteCgroupParents } from "../cgroups/cgroup-leftovers.js";
import { counterFiles } from "../cgroups/limit-counters.js";
import type { AsyncWatch } from "../commands/async-commands.js";
import { probeBwrap } from "../commands/bwrap.js";
import type { SpawnPlan } from "../commands/command-plan.js";
import { rescanInheritedDescriptors } from "../commands/inherited-descriptors.js";
import type { RunningCommands } from "../commands/running-commands.js";
import { EgressProxies } from "../egress/egress-proxies.js";
import { errorCode } from "../files/file-errors.js";
import { WorkspaceFiles } from "../files/workspace-files.js";
import { type LocalHandle, toHandle } from "../handle.js";
import { defaultRoot, LOCAL_PROVIDER, type ResolvedLocalOptions } from "../options.js";
import { SandboxPorts } from "../ports/sandbox-ports.js";
import { type MarkerRegistration, RunningMarkers } from "../processes/running-markers.js";
import { beginLaunch, endLaunch } from "../store/launches-in-flight.js";
import { isExpired, matchesLabels, type SandboxRecord } from "../store/sandbox-record.js";
import { firstWithin } from "../store/sandbox-root.js";
import { notFound, SandboxStore } from "../store/sandbox-store.js";
import { remountWorkspace } from "./bounded-workspace.js";
import { planSandboxCommand } from "./command-planning.js";
import { type DefaultResourcesReport, grantResources, judgeDefaults } from "./launch-resources.js";
import { reclaimRuntimeLeftovers } from "./leftover-reclaim.js";
import { launchNetwork, makeSandbox, type WorkspaceSeed } from "./sandbox-launch.js";
import { startSandbox, stopSandbox } from "./sandbox-lifecycle.js";
import { checkLaunchable, isolationRefusal, type LimitVerdicts } from "./sandbox-setup.js";
import { stopSandboxProcesses } from "./sandbox-teardown.js";
import { probeUser, userOf } from "./sandbox-users.js";

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
  /** Egress proxies this instance serves, for sandboxes with an allow list. */
  readonly #proxies: EgressProxies;
  #store: SandboxStore | undefined;
  /** Set once bubblewrap was found to work with the runtime's options (see {@link requireIsolation}). */
  #isolationConfirmed = false;
  /** Every sandbox gets a freezer cgroup at launch, so that `stop` can freeze it (the runtime declares `lifecycle`). */
  readonly #freezable: boolean;
  /** What the runtime decided at construction about the limits it can enforce. */
  readonly #verdicts: LimitVerdicts;
  /** Which default limits a launch gets for the fields it leaves unset (see `judgeDefaults`). */
  readonly defaults: DefaultResourcesReport;
  /** Bounded workspaces this instance has seen mounted (a host restart unmounts them; see {@link files}). */
  readonly #mounted = new Set<string>();

  /**
   * @param running the runtime's registry of commands in flight, which `destroy` stops first
   * @param verdicts which limits this process can enforce, decided at construction
   * @param freezable whether each launch must give its sandbox a freezer cgroup (refusing the launch when it cannot)
   */
  constructor(options: ResolvedLocalOptions, running: RunningCommands, verdicts: LimitVerdicts, freezable = false) {
    this.#options = options;
    this.#running = running;
    this.#verdicts = verdicts;
    this.defaults = judgeDefaults(options, verdicts);
    this.#freezable = freezable;
    this.#proxies = new EgressProxies(options);
    // Once per runtime, not per launch: the scan reads one file per open descriptor.
    rescanInheritedDescriptors();
  }

  /** The store, created on first use (resolving the default root reads the password database). */
  store(): SandboxStore {
    this.#store ??= new SandboxStore(
      this.#options.root ?? defaultRoot(),
      this.#options.owner,
      probeUser(this.#options),
      this.#verdicts.disk.ok ? this.#verdicts.disk.tools : undefined,
      () => reclaimRuntimeLeftovers(this.#options, this.store()),
    );
    return this.#store;
  }

  /** Checks that `handle` is a local handle with a well-formed id, and returns the id. */
  checkHandle(handle: unknown, operation: string): string {
    return SandboxStore.checkId(checkHandle(handle, LOCAL_PROVIDER, operation));
  }

  /**
   * Creates a sandbox from a validated spec: refuses what cannot be honoured
   * (`UNSUPPORTED`), sets up its cgroups, writes it to disk, its workspace
   * filled by `seed` when given (a snapshot's files). If `signal` fired
   * meanwhile (the caller was already told it failed), removes it again.
   */
  async launch(spec: ValidatedLaunchSpec, signal: AbortSignal, seed?: WorkspaceSeed): Promise<LocalHandle> {
    const explicit = checkLaunchable(spec, this.#options, this.#verdicts);
    const network = launchNetwork(spec, this.#options);
    // A sandbox without network reaches its ports through a relay run by the runtime's own Node binary.
    await this.requireIsolation(network.relayed ? [process.execPath] : []);
    const store = this.store();
    const { resources, defaulted } = await grantResources(explicit, this.defaults, async () => {
      await store.ensureRoot();
      return store.root;
    });
    const id = SandboxStore.newId();
    const host = this.#options.cgroups === "auto" ? await probeCgroupHost() : { legacy: {} };
    // The root first: its reclaim runs, and it notes where this process makes cgroups, before any is made.
    await store.ensureRoot();
    if (this.#options.cgroups === "auto") await noteCgroupParents(store.root, host);
    const context = {
      options: this.#options,
      store,
      host,
      freezable: this.#freezable,
      destroy: (record: SandboxRecord) => this.#destroyRecord(record),
    };
    // Until it ends, nothing made for this id is a leftover (see `abandonedBy`).
    beginLaunch(id);
    try {
      const record = await makeSandbox(context, id, { spec, resources, defaulted, ...network }, signal, seed);
      this.#records.set(id, record);
      if (record.disk) this.#mounted.add(id);
      return toHandle(record, store.workspaceDirectory(record));
    } finally {
      endLaunch(id);
    }
  }

  /**
   * Refuses with `UNSUPPORTED` when namespaces are configured but bubblewrap
   * cannot create them here, as the user commands run as, with the sandbox
   * root and the extra read-only paths reachable (probed once per process).
   */
  async requireIsolation(alsoReadable: readonly string[] = []): Promise<void> {
    const { isolation, bwrapPath, readOnlyPaths } = this.#options;
    const sandboxUser = probeUser(this.#options);
    if (isolation !== "namespaces" || (alsoReadable.length === 0 && this.#isolationConfirmed)) return;
    const store = this.store();
    await store.ensureRoot();
    const cover = sandboxUser ? store.rootCover : undefined;
    const hidden = cover ? firstWithin(cover, [...readOnlyPaths, ...alsoReadable]) : undefined;
    if (cover && hidden) {
      throw unsupported(
        LOCAL_PROVIDER,
        "readOnlyPaths",
        `commands run as the sandbox user, who cannot pass through ${cover} (no o+x), where ${hidden} is: ` +
          `chmod o+x ${cover}, or move it out`,
      );
    }
    const probe = await probeBwrap({
      bwrapPath,
      root: await store.probeDirectory(),
      ...(cover ? { rootBridge: { directory: store.root, cover } } : {}),
      readOnlyPaths: [...readOnlyPaths, ...alsoReadable],
      ...(sandboxUser ? { user: sandboxUser } : {}),
      ...(this.#options.syscallFilter ? { syscallFilter: true } : {}),
    });
    if (probe.ok) {
      // Every command asks again: answer from memory (probes are per process, and a success is for good).
      if (alsoReadable.length === 0) this.#isolationConfirmed = true;
      return;
    }
    throw isolationRefusal({ reason: probe.reason, root: store.root, sandboxUser, alsoReadable });
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

  /**
   * File access to a live sandbox's workspace, its bounded workspace proven mounted (see {@link #remount}).
   * The sandbox's existence is proven by the file operation itself.
   */
  async files(id: string): Promise<WorkspaceFiles> {
    const record = await this.requireLive(id, false);
    if (record.disk && !this.#mounted.has(id)) await this.#remount(record);
    let files = this.#files.get(id);
    if (!files) {
      const store = this.store();
      const directory = store.workspaceDirectory(record);
      const owner = userOf(record, this.#options);
      files = new WorkspaceFiles({
        directory,
        linkRoot: this.#options.isolation === "namespaces" ? this.#options.workspaceRoot : directory,
        trashDirectory: store.trashDirectory(record),
        ...(owner ? { owner } : {}),
      });
      this.#files.set(id, files);
    }
    return files;
  }

  /**
   * What an async command's supervisor reads around the command for its `limit` (see `AsyncWatch`):
   * the sandbox's limit counters, where this runtime uses its cgroups, and its bounded workspace.
   * `undefined` for a sandbox without limits.
   */
  watchFor(record: SandboxRecord): AsyncWatch | undefined {
    const counters = this.#options.cgroups === "auto" ? counterFiles(record.cgroups) : [];
    if (counters.length === 0 && !record.disk) return undefined;
    return record.disk ? { counters, workspace: this.store().workspaceDirectory(record) } : { counters };
  }

  /** Host directory of a live sandbox's workspace, mounted where it is bounded (the snapshot source). */
  async workspaceDirectory(id: string): Promise<string> {
    await this.files(id);
    return this.store().workspaceDirectory(await this.requireLive(id, false));
  }

  /** {@link remountWorkspace}, once per instance and sandbox (a host restart is the only thing that unmounts it). */
  async #remount(record: SandboxRecord): Promise<void> {
    await remountWorkspace(this.store(), record, this.#verdicts.disk);
    this.#mounted.add(record.id);
  }

  /**
   * Makes a just-spawned command findable by `destroy` from any process: a
   * command in its own cgroup leaf already is; any other gets a marker file
   * naming its leading process (a small write to a regular file, not a
   * cgroupfs write, which would wait on the kernel). Returns what undoes the
   * registration when the command ends, and when it is in place (a gated
   * command is let go only then: see `LAUNCH_GATE_SCRIPT`).
   */
  register(record: SandboxRecord, plan: SpawnPlan, pid: number): MarkerRegistration {
    if (plan.leaf) return { written: Promise.resolve(true), remove: () => {} };
    return this.markers(record.id).add(pid);
  }

  /**
   * Where to reach `port` of a live sandbox from this machine. With network
   * (and always under `none`) a server in the sandbox listens on the host's
   * own `127.0.0.1:<port>`, with no credential: the sandbox shares the host's
   * network stack, so its port is open to the host whatever endpoint the
   * runtime gave. Without network, only a port declared at launch, through a
   * forwarder this process starts on first use (shared by its runtime
   * instances, see `SandboxPorts`), whose endpoint carries its credential.
   *
   * The sandbox's existence is read afresh every time: another instance may
   * have destroyed it since this one last saw it (`NOT_FOUND`, and this
   * process's forwarders of it are closed), and a destroy that overtakes the
   * forwarder's start, or is under way in another instance, is `NOT_FOUND` too.
   */
  async portEndpoint(id: string, port: number): Promise<PortEndpoint> {
    let record: SandboxRecord;
    try {
      record = await this.requireLive(id);
    } catch (error) {
      if (SandportError.hasCode(error, "NOT_FOUND")) this.#forget(id);
      throw error;
    }
    if (record.network) return { url: `http://127.0.0.1:${port}` };
    if (!record.ports?.includes(port)) {
      throw invalidRequest(
        `port ${port} was not declared at launch (LaunchSpec.ports): a sandbox without network is reached only on its declared ports`,
        { field: "port", port },
        LOCAL_PROVIDER,
      );
    }
    try {
      return (await SandboxPorts.of(this.store().portsDirectory(id)).forwarder(port)).endpoint;
    } catch (error) {
      // Its ports directory went with the sandbox: say so, rather than ENOENT. The directory is made at launch
      // and removed only by destroy, before the metadata: gone while the metadata is still there, a destroy (of
      // another instance) is under way.
      if (errorCode(error) === "ENOENT" || (await this.store().read(id)).state === "absent") {
        this.#forget(id);
        throw notFound(id);
      }
      throw error;
    }
  }

  /** Drops what this instance holds of a sandbox another instance destroyed: its record, files and forwarders. */
  #forget(id: string): void {
    void SandboxPorts.close(this.store().portsDirectory(id));
    void this.#proxies.close(id);
    this.#records.delete(id);
    this.#files.delete(id);
    this.#mounted.delete(id);
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
    if (found.state === "foreign") throw foreignSandbox(LOCAL_PROVIDER, id, "reattach", found.reason);
    if (isExpired(found.record)) {
      await this.#destroyRecord(found.record);
      return undefined;
    }
    return toHandle(found.record, this.store().workspaceDirectory(found.record));
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
      handles.push(toHandle(record, this.store().workspaceDirectory(record)));
    }
    return handles;
  }

  /** Freezes every process of a live sandbox and refuses commands until {@link start} (see `stopSandbox`). */
  async stop(id: string, signal: AbortSignal): Promise<void> {
    await stopSandbox(this.store(), await this.requireLive(id), signal);
  }

  /** Thaws a stopped sandbox's processes and lets commands in again (see `startSandbox`). */
  async start(id: string, signal: AbortSignal): Promise<void> {
    await startSandbox(this.store(), await this.requireLive(id), signal);
  }

  /** Destroys an owned sandbox (absent is success; foreign is `FOREIGN_SANDBOX`). */
  async destroy(id: string): Promise<void> {
    // Before the first await: a command of this instance asked for until now is stopped, or never starts.
    this.#running.beginDestroy(id);
    try {
      // A record once seen is ours for good (records never change); only an unseen id needs reading.
      const cached = this.#records.get(id);
      if (cached) return await this.#destroyRecord(cached);
      const found = await this.store().read(id);
      if (found.state === "absent") return;
      if (found.state === "foreign") throw foreignSandbox(LOCAL_PROVIDER, id, "destroy", found.reason);
      await this.#destroyRecord(found.record);
    } finally {
      this.#running.destroyEnded(id);
    }
  }

  /** The spawn plan of `request` in sandbox `record`, after the checks it needs (see {@link planSandboxCommand}). */
  planFor(record: SandboxRecord, request: ValidatedExecRequest): Promise<SpawnPlan> {
    const context = {
      options: this.#options,
      store: this.store(),
      requireIsolation: () => this.requireIsolation(),
      files: (id: string) => this.files(id),
      proxies: this.#proxies,
    };
    return planSandboxCommand(context, record, request);
  }

  /**
   * Stops everything running in the sandbox (steps 1 to 5, see {@link stopSandboxProcesses}), then removes it:
   * 6. the files (`SandboxStore.remove`), proven gone.
   * A step that cannot be proven fails with `DESTROY_UNVERIFIED` and leaves the sandbox findable, so that
   * `destroy` can be called again to finish.
   */
  async #destroyRecord(record: SandboxRecord): Promise<void> {
    const store = this.store();
    // Before the first await (see `RunningCommands.beginDestroy`); ended below, whatever happens.
    this.#running.beginDestroy(record.id);
    try {
      // First, so that it is among the names removed below, and other runtimes' streams let go of the workspace.
      await store.markDestroying(record.id);
      const names = await stopSandboxProcesses({ record, store, running: this.#running, options: this.#options });
      await SandboxPorts.close(store.portsDirectory(record.id));
      await this.#proxies.close(record.id);
      await store.remove(record.id, names, record.uidMarker);
      this.#records.delete(record.id);
      this.#files.delete(record.id);
      this.#mounted.delete(record.id);
    } finally {
      // Done: the sandbox is gone from disk, so a command asked for now is NOT_FOUND by its record.
      this.#running.destroyEnded(record.id);
    }
  }
}
