import { statSync } from "node:fs";
import {
  type CommandCwd,
  invalidRequest,
  type Labels,
  type NetworkAllowList,
  type PortEndpoint,
  type ResourceLimits,
  SandportError,
  unsupported,
  type ValidatedExecRequest,
  type ValidatedLaunchSpec,
} from "@sandport/core";
import { checkHandle, foreignSandbox, missingCwd, networkEnabled, resolveCwd } from "@sandport/core/adapter";
import { type CgroupHost, probeCgroupHost } from "../cgroups/cgroup-host.js";
import { noteCgroupParents, reclaimCgroups } from "../cgroups/cgroup-leftovers.js";
import { sandboxCgroupName } from "../cgroups/cgroup-name.js";
import { createLeaf, createSandboxCgroups, nameLeaf, removeSandboxCgroups } from "../cgroups/cgroups.js";
import { addFreezer } from "../cgroups/freezer.js";
import { counterFiles } from "../cgroups/limit-counters.js";
import type { AsyncWatch } from "../commands/async-commands.js";
import { probeBwrap } from "../commands/bwrap.js";
import { planCommand, type SpawnPlan } from "../commands/command-plan.js";
import { rescanInheritedDescriptors } from "../commands/inherited-descriptors.js";
import { runCommand } from "../commands/process-runner.js";
import type { RunningCommands } from "../commands/running-commands.js";
import { diskBytes } from "../disk/workspace-disk.js";
import { EgressProxies } from "../egress/egress-proxies.js";
import { reclaimEgressSockets } from "../egress/egress-socket-name.js";
import { errorCode } from "../files/file-errors.js";
import { WorkspaceFiles } from "../files/workspace-files.js";
import type { FileOwner } from "../files/workspace-walk.js";
import { type LocalHandle, toHandle } from "../handle.js";
import { defaultRoot, LOCAL_PROVIDER, type ResolvedLocalOptions } from "../options.js";
import { SandboxPorts } from "../ports/sandbox-ports.js";
import { type MarkerRegistration, RunningMarkers } from "../processes/running-markers.js";
import { killNamespaceHolder, type NamespaceHolder, openNamespaces } from "../processes/sandbox-namespaces.js";
import { beginLaunch, endLaunch } from "../store/launches-in-flight.js";
import type { Leftover } from "../store/leftover-report.js";
import { isExpired, matchesLabels, SANDBOX_RECORD_FORMAT, type SandboxRecord } from "../store/sandbox-record.js";
import { firstWithin } from "../store/sandbox-root.js";
import { notFound, SandboxStore } from "../store/sandbox-store.js";
import { reclaimUidMarkers } from "../store/uid-leftovers.js";
import { type TakenUid, UidPool } from "../store/uid-pool.js";
import { remountWorkspace } from "./bounded-workspace.js";
import { type DefaultResourcesReport, grantResources, judgeDefaults } from "./launch-resources.js";
import { refuseIfStopped, startSandbox, stopSandbox } from "./sandbox-lifecycle.js";
import {
  checkLaunchable,
  isolationRefusal,
  type LimitVerdicts,
  prepareEgressDirectory,
  preparePortsDirectory,
  startNamespaces,
} from "./sandbox-setup.js";
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
      () => this.#reclaimLeftovers(),
    );
    return this.#store;
  }

  /**
   * The store's reclaim beyond staging directories: the sandbox cgroups of
   * this root and owner that nothing will use (unless cgroups are
   * `"disabled"`), then the egress sockets of gone processes in this owner's
   * sandboxes, then (with one uid per sandbox) the uid markers of this root's
   * launches killed before their record existed.
   */
  async #reclaimLeftovers(): Promise<Leftover[]> {
    const store = this.store();
    const cgroups =
      this.#options.cgroups === "auto"
        ? await reclaimCgroups({
            root: store.root,
            owner: this.#options.owner,
            host: await probeCgroupHost(),
            holds: (id) => store.holds(id),
          })
        : [];
    const egress = (await store.records()).filter((record) => record.egress !== undefined);
    const sockets = await reclaimEgressSockets(egress.map((record) => store.egressDirectory(record.id)));
    const { sandboxUids } = this.#options;
    const uids = sandboxUids
      ? await reclaimUidMarkers({
          directory: sandboxUids.directory,
          root: store.root,
          holds: (id) => store.holds(id),
          range: sandboxUids,
        })
      : [];
    return [...cgroups, ...sockets, ...uids];
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
  async launch(
    spec: ValidatedLaunchSpec,
    signal: AbortSignal,
    seed?: (workspace: string, owner: FileOwner | undefined) => Promise<void>,
  ): Promise<LocalHandle> {
    const isolation = this.#options.isolation;
    const explicit = checkLaunchable(spec, this.#options, this.#verdicts);
    const ports = spec.ports && spec.ports.length > 0 ? spec.ports : undefined;
    // An allow list, or "all" under namespaces without hostNetwork: no network of its own; its commands reach out
    // only through this runtime's egress proxy (to public addresses only, for "all").
    const open =
      typeof spec.network === "object" ? false : networkEnabled(spec.network, isolation === "none", LOCAL_PROVIDER);
    const proxied = open && isolation === "namespaces" && !this.#options.hostNetwork;
    const egress = typeof spec.network === "object" ? spec.network : proxied ? "all" : undefined;
    const network = open && !proxied;
    // A sandbox without network reaches its ports through a relay run by the runtime's own Node binary.
    const relayed = ports !== undefined && isolation === "namespaces" && !network;
    await this.requireIsolation(relayed ? [process.execPath] : []);
    const { resources, defaulted } = await grantResources(explicit, this.defaults, async () => {
      await this.store().ensureRoot();
      return this.store().root;
    });
    const id = SandboxStore.newId();
    const host = this.#options.cgroups === "auto" ? await probeCgroupHost() : { legacy: {} };
    const store = this.store();
    // The root first: its reclaim runs, and it notes where this process makes cgroups, before any is made.
    await store.ensureRoot();
    if (this.#options.cgroups === "auto") await noteCgroupParents(store.root, host);
    // Until it ends, nothing made for this id is a leftover (see `abandonedBy`).
    beginLaunch(id);
    try {
      return await this.#launchAs(
        id,
        host,
        { spec, resources, defaulted, ports, egress, network, relayed },
        signal,
        seed,
      );
    } finally {
      endLaunch(id);
    }
  }

  /** {@link launch} once checked: the cgroups, namespaces and files of sandbox `id`. */
  async #launchAs(
    id: string,
    host: CgroupHost,
    plan: LaunchPlan,
    signal: AbortSignal,
    seed?: (workspace: string, owner: FileOwner | undefined) => Promise<void>,
  ): Promise<LocalHandle> {
    const { spec, resources, defaulted, ports, egress, network, relayed } = plan;
    const isolation = this.#options.isolation;
    const name = sandboxCgroupName(id, this.store().root, this.#options.owner);
    // Under namespaces a command's processes die with its PID namespace: a cgroup is needed only for limits
    // and, where the runtime can stop sandboxes, the freezer.
    const tracking = this.#options.cgroups === "auto" && isolation === "none";
    let cgroups = await createSandboxCgroups(host, name, resources ? { resources, tracking } : { tracking });
    if (this.#freezable) {
      try {
        cgroups = await addFreezer(host, name, cgroups);
      } catch (error) {
        await removeSandboxCgroups(cgroups);
        throw error;
      }
    }
    let taken: TakenUid | undefined;
    let namespaces: NamespaceHolder | undefined;
    const { sandboxUids } = this.#options;
    try {
      if (sandboxUids) taken = await new UidPool(sandboxUids.directory, sandboxUids).take(id, this.store().root);
      namespaces = await startNamespaces(this.#options, network, taken?.user ?? this.#options.sandboxUser);
    } catch (error) {
      if (taken) await UidPool.giveBack(taken.marker, id).catch(() => {});
      await removeSandboxCgroups(cgroups);
      throw error;
    }
    const now = Date.now();
    const record: SandboxRecord = {
      format: SANDBOX_RECORD_FORMAT,
      id,
      owner: this.#options.owner,
      createdAt: new Date(now).toISOString(),
      labels: spec.labels ?? {},
      ...(spec.launchKey === undefined ? {} : { launchKey: spec.launchKey }),
      env: spec.env ?? {},
      network,
      ...(resources ? { resources } : {}),
      ...(defaulted.length > 0 ? { defaults: defaulted } : {}),
      ...(ports ? { ports } : {}),
      ...(egress ? { egress } : {}),
      ...(spec.lifetimeMs === undefined ? {} : { expiresAt: new Date(now + spec.lifetimeMs).toISOString() }),
      ...(cgroups ? { cgroups } : {}),
      ...(resources?.diskMiB === undefined ? {} : { disk: { bytes: diskBytes(resources.diskMiB) } }),
      ...(namespaces ? { namespaces } : {}),
      ...(taken ? { user: taken.user, uidMarker: taken.marker } : {}),
      ...(this.#options.sandboxUser ? { user: this.#options.sandboxUser } : {}),
    };
    try {
      await this.store().create(record, seed);
    } catch (error) {
      if (namespaces) await killNamespaceHolder(namespaces, 2_000);
      if (taken) await UidPool.giveBack(taken.marker, id).catch(() => {});
      await removeSandboxCgroups(cgroups);
      if (record.disk && seed && errorCode(error) === "ENOSPC") {
        const bound = defaulted.includes("diskMiB")
          ? " (the runtime's default, defaultResources.diskMiB: name a larger resources.diskMiB in the launch)"
          : "";
        throw invalidRequest(
          `the snapshot's files do not fit in resources.diskMiB (${resources?.diskMiB} MiB${bound})`,
          { field: "resources.diskMiB" },
          LOCAL_PROVIDER,
        );
      }
      throw error;
    }
    this.#records.set(id, record);
    if (record.disk) this.#mounted.add(id);
    if (relayed || egress) {
      try {
        // A sandbox of its own uid: its relays' sockets are its alone (and root's).
        const group = taken?.user.gid;
        if (relayed) await preparePortsDirectory(this.store().portsDirectory(id), group);
        if (egress) await prepareEgressDirectory(this.store().egressDirectory(id), group);
      } catch (error) {
        await this.#destroyRecord(record).catch(() => {});
        throw error;
      }
    }
    if (signal.aborted) {
      // The caller has already been told the launch failed: leave nothing behind.
      await this.#destroyRecord(record).catch(() => {});
      throw signal.reason;
    }
    return toHandle(record, this.store().workspaceDirectory(record));
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
      root: store.root,
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

  /**
   * Prepares one command: checks isolation, network and limits can be honoured,
   * that `cwd` exists inside the workspace, creates the command's cgroup leaf
   * (under `none`), and builds the spawn plan.
   */
  /** Runs `true` in `cwd` inside sandbox `record`: rejects with `NOT_FOUND` (`missingCwd`) when it is missing there. */
  async #probeCwd(record: SandboxRecord, cwd: CommandCwd): Promise<void> {
    const plan = await this.planFor(record, { argv: ["true"], cwd, env: {} }, true);
    await runCommand({
      plan,
      timeoutMs: CWD_PROBE_TIMEOUT_MS,
      maxOutputBytes: 4096,
      killGraceMs: this.#options.killGraceMs,
      signal: new AbortController().signal,
    });
  }

  /**
   * The spawn plan of `request` in sandbox `record`, after the checks it
   * needs: isolation, network, limits, and that its working directory exists.
   * A `cwd` outside the workspace exists only inside the sandbox under
   * namespaces: a `true` run there first (one more bubblewrap, 10-20 ms,
   * only for such a `cwd`) proves it, so that `spawn` and `startCommand`
   * refuse a missing one with `NOT_FOUND` as `exec` does, before the command
   * starts (`probe`: this is that run).
   */
  async planFor(record: SandboxRecord, request: ValidatedExecRequest, probe = false): Promise<SpawnPlan> {
    const { isolation, cgroups } = this.#options;
    await this.requireIsolation();
    await refuseIfStopped(this.store(), record.id);
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
    const workspaceDirectory = this.store().workspaceDirectory(record);
    // Proves the sandbox still exists (the record may come from this instance's cache) and a workspace `cwd` is a
    // directory. A `cwd` elsewhere is the host's own under `none` (checked here); under namespaces it exists only
    // inside: the probe enters it, and bubblewrap's failure to is the same NOT_FOUND (`runCommand`).
    const files = await this.files(record.id);
    const { cwd } = request;
    if (cwd.kind === "workspace") {
      try {
        files.checkDirectory(cwd.path, "working directory");
      } catch (error) {
        // The same error, naming the same absolute directory, as a missing one elsewhere in the sandbox.
        if (cwd.path === "" || !SandportError.hasCode(error, "NOT_FOUND")) throw error;
        throw missingCwd(LOCAL_PROVIDER, resolveCwd(cwd, this.#options.workspaceRoot), { cause: error });
      }
    } else {
      files.checkDirectory("", "workspace");
      if (isolation === "none") checkHostDirectory(cwd.path);
      else if (!probe) await this.#probeCwd(record, cwd);
    }
    const usable = cgroups === "auto" ? record.cgroups : undefined;
    // A command without limits gets its leaf in the background (see `CommandTree`); with limits it joins it in `sh`.
    const limited = (usable?.limits.length ?? 0) > 0;
    const leaf = isolation !== "none" ? undefined : limited ? await createLeaf(usable) : nameLeaf(usable);
    const sandboxUser = userOf(record, this.#options);
    if (record.namespaces && (isolation !== "namespaces" || !sandboxUser)) {
      throw unsupported(
        LOCAL_PROVIDER,
        'namespaceScope "sandbox"',
        `sandbox ${record.id} was launched with namespaces of its own, which only a root runtime with isolation "namespaces" can join`,
      );
    }
    const shareNamespaces = record.namespaces !== undefined;
    // A holder that is gone is NOT_FOUND now, before anything is spawned (the spawner checks again).
    if (shareNamespaces) openNamespaces(record.id, record.namespaces as NamespaceHolder, true).close();
    return planCommand({
      ...(shareNamespaces ? { shareNamespaces } : {}),
      isolation,
      bwrapPath: this.#options.bwrapPath,
      readOnlyPaths: this.#options.readOnlyPaths,
      workspaceDirectory,
      workspaceRoot: this.#options.workspaceRoot,
      record: usable === record.cgroups ? record : withoutCgroups(record),
      request,
      ...(leaf ? { leaf } : {}),
      ...(sandboxUser ? { sandboxUser } : {}),
      ...(sandboxUser && this.store().rootCover
        ? {
            rootBridge: {
              directory: this.store().sandboxDirectory(record.id),
              cover: this.store().rootCover as string,
            },
          }
        : {}),
      ...(this.#options.syscallFilter ? { syscallFilter: true } : {}),
      ...(record.ports && !record.network ? { portsDirectory: this.store().portsDirectory(record.id) } : {}),
      ...(record.egress && isolation === "namespaces"
        ? { egress: await this.#proxies.serve(record.id, record.egress, this.store().egressDirectory(record.id)) }
        : {}),
    });
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

function withoutCgroups(record: SandboxRecord): SandboxRecord {
  const { cgroups: _ignored, ...rest } = record;
  return rest;
}

/** How long the run that proves a working directory may take; bubblewrap and `true` take 10-20 ms. */
const CWD_PROBE_TIMEOUT_MS = 30_000;

/** Under `none`, a working directory outside the workspace is the host's: `NOT_FOUND` unless it is a directory there. */
function checkHostDirectory(path: string): void {
  let directory = false;
  try {
    directory = statSync(path).isDirectory();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOENT" && code !== "ENOTDIR") throw error;
  }
  if (!directory)
    throw missingCwd(LOCAL_PROVIDER, path, { reason: "on the host, which commands see under isolation none" });
}

/** What {@link SandboxAccess.launch} decided before making anything. */
interface LaunchPlan {
  readonly spec: ValidatedLaunchSpec;
  readonly resources: ResourceLimits | undefined;
  /** Which of `resources` came from the runtime's defaults. */
  readonly defaulted: readonly (keyof ResourceLimits)[];
  readonly ports: ValidatedLaunchSpec["ports"];
  readonly egress: NetworkAllowList | "all" | undefined;
  /** Whether commands share the host's network. */
  readonly network: boolean;
  /** Whether its ports are reached through the relay. */
  readonly relayed: boolean;
}
