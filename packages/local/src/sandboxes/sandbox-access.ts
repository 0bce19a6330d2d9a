import { access, chmod, mkdir, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  invalidRequest,
  type Labels,
  type LaunchSpec,
  type PortEndpoint,
  SandportError,
  sleep,
  unsupported,
  type ValidatedExecRequest,
} from "@sandport/core";
import { checkHandle, foreignSandbox } from "@sandport/core/adapter";
import { probeCgroupHost } from "../cgroups/cgroup-host.js";
import { createLeaf, createSandboxCgroups, nameLeaf, removeSandboxCgroups } from "../cgroups/cgroups.js";
import { AsyncCommands } from "../commands/async-commands.js";
import { probeBwrap } from "../commands/bwrap.js";
import { planCommand, SETPRIV_PATH, type SpawnPlan } from "../commands/command-plan.js";
import { rescanInheritedDescriptors } from "../commands/inherited-descriptors.js";
import type { RunningCommands } from "../commands/running-commands.js";
import { WorkspaceFiles } from "../files/workspace-files.js";
import { type LocalHandle, toHandle } from "../handle.js";
import { defaultRoot, LOCAL_PROVIDER, type ResolvedLocalOptions } from "../options.js";
import { PortForwarder } from "../ports/port-forwarder.js";
import { RELAY_FILE, RELAY_SOURCE } from "../ports/port-relay-source.js";
import { killMarked, markedProcesses, sandboxPrefix } from "../processes/command-marker.js";
import { isAlive } from "../processes/process-tree.js";
import { RunningMarkers } from "../processes/running-markers.js";
import {
  killNamespaceHolder,
  type NamespaceHolder,
  NSENTER_PATH,
  openNamespaces,
  startNamespaceHolder,
  UNSHARE_PATH,
} from "../processes/sandbox-namespaces.js";
import { isExpired, matchesLabels, SANDBOX_RECORD_FORMAT, type SandboxRecord } from "../store/sandbox-record.js";
import { SandboxStore } from "../store/sandbox-store.js";

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
  /** Port forwarders this instance serves, by sandbox id, then port. */
  readonly #forwarders = new Map<string, Map<number, Promise<PortForwarder>>>();
  #store: SandboxStore | undefined;
  /** Set once bubblewrap was found to work with the runtime's options (see {@link requireIsolation}). */
  #isolationConfirmed = false;

  /** @param running the runtime's registry of commands in flight, which `destroy` stops first */
  constructor(options: ResolvedLocalOptions, running: RunningCommands) {
    this.#options = options;
    this.#running = running;
    // Once per runtime, not per launch: the scan reads one file per open descriptor.
    rescanInheritedDescriptors();
  }

  /** The store, created on first use (resolving the default root reads the password database). */
  store(): SandboxStore {
    this.#store ??= new SandboxStore(
      this.#options.root ?? defaultRoot(),
      this.#options.owner,
      this.#options.sandboxUser,
    );
    return this.#store;
  }

  /** Checks that `handle` is a local handle with a well-formed id, and returns the id. */
  checkHandle(handle: unknown, operation: string): string {
    return SandboxStore.checkId(checkHandle(handle, LOCAL_PROVIDER, operation));
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
    if (
      resources &&
      this.#options.sandboxUser &&
      !(await access(SETPRIV_PATH).then(
        () => true,
        () => false,
      ))
    ) {
      throw unsupported(
        LOCAL_PROVIDER,
        "resources",
        `as root, a command joins its cgroups and then switches to the sandbox user with ${SETPRIV_PATH} (util-linux), which is missing`,
      );
    }
    const ports = spec.ports && spec.ports.length > 0 ? spec.ports : undefined;
    const network = spec.network ?? isolation === "none";
    // A sandbox without network reaches its ports through a relay run by the runtime's own Node binary.
    const relayed = ports !== undefined && isolation === "namespaces" && !network;
    await this.requireIsolation(relayed ? [process.execPath] : []);
    const id = SandboxStore.newId();
    const host = this.#options.cgroups === "auto" ? await probeCgroupHost() : { legacy: {} };
    // Under namespaces a command's processes die with its PID namespace: a cgroup is needed only for limits.
    const tracking = this.#options.cgroups === "auto" && isolation === "none";
    const cgroups = await createSandboxCgroups(host, id, resources ? { resources, tracking } : { tracking });
    let namespaces: NamespaceHolder | undefined;
    try {
      namespaces = await this.#startNamespaces(network);
    } catch (error) {
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
      ...(ports ? { ports } : {}),
      ...(spec.lifetimeMs === undefined ? {} : { expiresAt: new Date(now + spec.lifetimeMs).toISOString() }),
      ...(cgroups ? { cgroups } : {}),
      ...(namespaces ? { namespaces } : {}),
    };
    try {
      await this.store().create(record);
    } catch (error) {
      if (namespaces) await killNamespaceHolder(namespaces, 2_000);
      await removeSandboxCgroups(cgroups);
      throw error;
    }
    this.#records.set(id, record);
    if (relayed) {
      try {
        await preparePortsDirectory(this.store().portsDirectory(id));
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
    return toHandle(record, this.store().workspaceDirectory(id));
  }

  /**
   * Under `namespaceScope: "sandbox"`, starts the sandbox's namespaces and
   * returns their holder (`UNSUPPORTED` naming what failed); otherwise nothing.
   */
  async #startNamespaces(network: boolean): Promise<NamespaceHolder | undefined> {
    const { namespaceScope, sandboxUser, bwrapPath } = this.#options;
    if (namespaceScope !== "sandbox" || !sandboxUser) return undefined;
    try {
      return await startNamespaceHolder({ bwrapPath, user: sandboxUser, network });
    } catch (error) {
      throw new SandportError({
        code: "UNSUPPORTED",
        provider: LOCAL_PROVIDER,
        message:
          `namespaceScope "sandbox": could not make the sandbox's namespaces (${(error as Error).message}). ` +
          `It needs root, bubblewrap, ${NSENTER_PATH} and ${UNSHARE_PATH} (util-linux), and user namespaces for uid ${sandboxUser.uid}`,
        cause: error,
      });
    }
  }

  /**
   * Refuses with `UNSUPPORTED` when namespaces are configured but bubblewrap
   * cannot create them here, as the user commands run as, with the sandbox
   * root and the extra read-only paths reachable (probed once per process).
   */
  async requireIsolation(alsoReadable: readonly string[] = []): Promise<void> {
    const { isolation, bwrapPath, sandboxUser, readOnlyPaths } = this.#options;
    if (isolation !== "namespaces" || (alsoReadable.length === 0 && this.#isolationConfirmed)) return;
    const store = this.store();
    await store.ensureRoot();
    const probe = await probeBwrap({
      bwrapPath,
      root: store.root,
      readOnlyPaths: [...readOnlyPaths, ...alsoReadable],
      ...(sandboxUser ? { user: sandboxUser } : {}),
    });
    if (probe.ok) {
      // Every command asks again: answer from memory (probes are per process, and a success is for good).
      if (alsoReadable.length === 0) this.#isolationConfirmed = true;
      return;
    }
    const user = sandboxUser
      ? ` Commands run as uid ${sandboxUser.uid} (the runtime is root; see the sandboxUser option), which needs ` +
        "unprivileged user namespaces and must be able to pass through every parent of the root " +
        `(${store.root}) and of each readOnlyPaths entry${alsoReadable.length > 0 ? ` and of ${alsoReadable.join(", ")} (the port relay runs this Node)` : ""}.`
      : "";
    throw unsupported(
      LOCAL_PROVIDER,
      'isolation "namespaces"',
      `bubblewrap cannot create namespaces here (${probe.reason}).${user} Install bubblewrap and allow unprivileged ` +
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
      const store = this.store();
      const directory = store.workspaceDirectory(id);
      const owner = this.#options.sandboxUser;
      files = new WorkspaceFiles({
        directory,
        linkRoot: this.#options.isolation === "namespaces" ? this.#options.workspaceRoot : directory,
        trashDirectory: store.trashDirectory(id),
        ...(owner ? { owner } : {}),
      });
      this.#files.set(id, files);
    }
    return files;
  }

  /**
   * Makes a just-spawned command findable by `destroy` from any process: a
   * command in its own cgroup leaf already is; any other gets a marker file
   * naming its leading process (a small write to a regular file, not a
   * cgroupfs write, which would wait on the kernel). Returns what undoes the
   * registration when the command ends.
   */
  register(record: SandboxRecord, plan: SpawnPlan, pid: number): () => void {
    if (plan.leaf) return () => {};
    return this.markers(record.id).add(pid);
  }

  /**
   * Where to reach `port` of a live sandbox from this machine. With network
   * (and always under `none`) a server in the sandbox listens on the host's
   * own `127.0.0.1:<port>`. Without network, only a port declared at launch,
   * through a forwarder this instance starts on first use.
   */
  async portEndpoint(id: string, port: number): Promise<PortEndpoint> {
    const record = await this.requireLive(id, false);
    if (record.network) return { url: `http://127.0.0.1:${port}` };
    if (!record.ports?.includes(port)) {
      throw invalidRequest(
        `port ${port} was not declared at launch (LaunchSpec.ports): a sandbox without network is reached only on its declared ports`,
        { field: "port", port },
        LOCAL_PROVIDER,
      );
    }
    let byPort = this.#forwarders.get(id);
    if (!byPort) {
      byPort = new Map();
      this.#forwarders.set(id, byPort);
    }
    let forwarder = byPort.get(port);
    if (!forwarder) {
      forwarder = PortForwarder.start(this.store().portsDirectory(id), port);
      forwarder.catch(() => byPort?.delete(port));
      byPort.set(port, forwarder);
    }
    return { url: (await forwarder).url };
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
    if (found.state === "foreign") throw foreignSandbox(LOCAL_PROVIDER, id, "destroy", found.reason);
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
    (await this.files(record.id)).checkDirectory(request.cwd, "working directory");
    const usable = cgroups === "auto" ? record.cgroups : undefined;
    // A command without limits gets its leaf in the background (see `CommandTree`); with limits it joins it in `sh`.
    const limited = (usable?.limits.length ?? 0) > 0;
    const leaf = isolation !== "none" ? undefined : limited ? await createLeaf(usable) : nameLeaf(usable);
    const sandboxUser = this.#options.sandboxUser;
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
      ...(record.ports && !record.network ? { portsDirectory: this.store().portsDirectory(record.id) } : {}),
    });
  }

  /**
   * Stops everything running in the sandbox, then removes it:
   * 1. commands this instance runs (aborted, then awaited);
   * 2. async commands (their supervisors and process groups, from their records);
   * 3. commands other processes run there (from their markers in `running/`);
   * 4. everything in the sandbox's cgroups (`cgroup.kill`);
   * 5. under `none`, every process whose `SANDPORT_LOCAL_COMMAND_ID` names this sandbox, in rounds until
   *    a scan of `/proc` finds none alive: what escaped a command's group and cgroup, what a supervisor
   *    killed before its own kill timer left behind, what commands of a runtime process that died left;
   * 6. the files (`SandboxStore.remove`), proven gone.
   * A step that cannot be proven fails with `DESTROY_UNVERIFIED` and leaves the sandbox findable, so that
   * `destroy` can be called again to finish.
   */
  async #destroyRecord(record: SandboxRecord): Promise<void> {
    const grace = this.#options.killGraceMs;
    const store = this.store();
    await this.#running.stopAll(record.id, grace + 2_000);
    // `commands/` exists only once something used it; `running/` may be missing in sandboxes of older versions.
    const names = await readdir(store.sandboxDirectory(record.id)).catch(() => [] as string[]);
    if (names.includes("commands")) await new AsyncCommands(store.commandsDirectory(record.id)).stopAll(grace);
    const strays = names.includes("running") ? await this.markers(record.id).killAll() : [];
    const deadline = Date.now() + 2_000;
    while (Date.now() < deadline && strays.some(isAlive)) await sleep(10);
    // Every process of the sandbox dies with its PID namespace's init, whatever the markers say.
    const namespacesGone = record.namespaces ? await killNamespaceHolder(record.namespaces, 2_000 + grace) : true;
    const cgroupsGone = await removeSandboxCgroups(record.cgroups);
    const markedGone =
      this.#options.isolation !== "none" || (await killEveryMarked(sandboxPrefix(record.id), 2_000 + grace));
    if (!cgroupsGone || !markedGone || !namespacesGone || strays.some(isAlive)) {
      const left = [
        !namespacesGone && "its PID namespace",
        !cgroupsGone && "its cgroups",
        !markedGone && "marked processes",
        strays.some(isAlive) && "commands",
      ];
      throw new SandportError({
        code: "DESTROY_UNVERIFIED",
        provider: LOCAL_PROVIDER,
        message: `could not prove every process of sandbox ${record.id} dead (${left.filter(Boolean).join(", ")}); its files are kept and destroy can be called again`,
        details: { sandboxId: record.id },
      });
    }
    for (const forwarder of this.#forwarders.get(record.id)?.values() ?? []) {
      await forwarder.then((started) => started.close()).catch(() => {});
    }
    this.#forwarders.delete(record.id);
    await store.remove(record.id, names);
    this.#records.delete(record.id);
    this.#files.delete(record.id);
  }
}

/**
 * SIGKILLs every process carrying a marker that starts with `prefix`, in
 * rounds, until a scan finds none left (`true`) or `timeoutMs` passes (`false`).
 */
async function killEveryMarked(prefix: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    killMarked(prefix, { prefix: true });
    if (markedProcesses(prefix, { prefix: true }).length === 0) return true;
    if (Date.now() > deadline) return false;
    await sleep(10);
  }
}

/** Creates a sandbox's ports directory (read-only to commands) with the relay program in it. */
async function preparePortsDirectory(directory: string): Promise<void> {
  await mkdir(directory, { mode: 0o755 });
  await chmod(directory, 0o755);
  await writeFile(join(directory, RELAY_FILE), RELAY_SOURCE, { mode: 0o644 });
}

function withoutCgroups(record: SandboxRecord): SandboxRecord {
  const { cgroups: _ignored, ...rest } = record;
  return rest;
}
