/**
 * How one command of a sandbox becomes a spawn plan: the checks it needs
 * first (isolation, a stopped sandbox, network and limits the options can
 * honour, a working directory that exists), then its cgroup leaf and the
 * plan itself.
 *
 * @module
 */

import { statSync } from "node:fs";
import { type CommandCwd, SandportError, unsupported, type ValidatedExecRequest } from "@sandport/core";
import { missingCwd, resolveCwd } from "@sandport/core/adapter";
import { createLeaf, nameLeaf } from "../cgroups/cgroups.js";
import { planCommand, type SpawnPlan } from "../commands/command-plan.js";
import { runCommand } from "../commands/process-runner.js";
import type { EgressProxies } from "../egress/egress-proxies.js";
import type { WorkspaceFiles } from "../files/workspace-files.js";
import { LOCAL_PROVIDER, type ResolvedLocalOptions } from "../options.js";
import { type NamespaceHolder, openNamespaces } from "../processes/sandbox-namespaces.js";
import type { SandboxRecord } from "../store/sandbox-record.js";
import type { SandboxStore } from "../store/sandbox-store.js";
import { refuseIfStopped } from "./sandbox-lifecycle.js";
import { userOf } from "./sandbox-users.js";

/** What planning a command reads from the runtime's sandbox access. */
export interface PlanningContext {
  readonly options: ResolvedLocalOptions;
  readonly store: SandboxStore;
  /** Refuses with `UNSUPPORTED` when the configured isolation cannot be had here. */
  requireIsolation(): Promise<void>;
  /** File access to a live sandbox's workspace (which proves it still exists). */
  files(id: string): Promise<WorkspaceFiles>;
  /** The egress proxies this instance serves. */
  readonly proxies: EgressProxies;
}

/** How long the run that proves a working directory may take; bubblewrap and `true` take 10-20 ms. */
const CWD_PROBE_TIMEOUT_MS = 30_000;

/**
 * The spawn plan of `request` in sandbox `record`, after the checks it
 * needs: isolation, network, limits, and that its working directory exists.
 * A `cwd` outside the workspace exists only inside the sandbox under
 * namespaces: a `true` run there first (one more bubblewrap, 10-20 ms,
 * only for such a `cwd`) proves it, so that `spawn` and `startCommand`
 * refuse a missing one with `NOT_FOUND` as `exec` does, before the command
 * starts (`probe`: this is that run).
 */
export async function planSandboxCommand(
  context: PlanningContext,
  record: SandboxRecord,
  request: ValidatedExecRequest,
  probe = false,
): Promise<SpawnPlan> {
  const { options, store } = context;
  const { isolation, cgroups } = options;
  await context.requireIsolation();
  await refuseIfStopped(store, record.id);
  refuseUnhonoured(record, options);
  const workspaceDirectory = store.workspaceDirectory(record);
  // Proves the sandbox still exists (the record may come from this instance's cache) and a workspace `cwd` is a
  // directory. A `cwd` elsewhere is the host's own under `none` (checked here); under namespaces it exists only
  // inside: the probe enters it, and bubblewrap's failure to is the same NOT_FOUND (`runCommand`).
  const files = await context.files(record.id);
  const { cwd } = request;
  if (cwd.kind === "workspace") {
    try {
      files.checkDirectory(cwd.path, "working directory");
    } catch (error) {
      // The same error, naming the same absolute directory, as a missing one elsewhere in the sandbox.
      if (cwd.path === "" || !SandportError.hasCode(error, "NOT_FOUND")) throw error;
      throw missingCwd(LOCAL_PROVIDER, resolveCwd(cwd, options.workspaceRoot), { cause: error });
    }
  } else {
    files.checkDirectory("", "workspace");
    if (isolation === "none") checkHostDirectory(cwd.path);
    else if (!probe) await probeCwd(context, record, cwd);
  }
  const usable = cgroups === "auto" ? record.cgroups : undefined;
  // A command without limits gets its leaf in the background (see `CommandTree`); with limits it joins it in `sh`.
  const limited = (usable?.limits.length ?? 0) > 0;
  const leaf = isolation !== "none" ? undefined : limited ? await createLeaf(usable) : nameLeaf(usable);
  const sandboxUser = userOf(record, options);
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
    bwrapPath: options.bwrapPath,
    readOnlyPaths: options.readOnlyPaths,
    workspaceDirectory,
    workspaceRoot: options.workspaceRoot,
    record: usable === record.cgroups ? record : withoutCgroups(record),
    request,
    ...(leaf ? { leaf } : {}),
    ...(sandboxUser ? { sandboxUser } : {}),
    ...(sandboxUser && store.rootCover
      ? { rootBridge: { directory: store.sandboxDirectory(record.id), cover: store.rootCover } }
      : {}),
    ...(options.syscallFilter ? { syscallFilter: true } : {}),
    ...(record.ports && !record.network ? { portsDirectory: store.portsDirectory(record.id) } : {}),
    ...(record.egress && isolation === "namespaces"
      ? { egress: await context.proxies.serve(record.id, record.egress, store.egressDirectory(record.id)) }
      : {}),
  });
}

/** `UNSUPPORTED` for a sandbox whose network or limits these options cannot honour. */
function refuseUnhonoured(record: SandboxRecord, options: ResolvedLocalOptions): void {
  if (options.isolation === "none" && !record.network) {
    throw unsupported(
      LOCAL_PROVIDER,
      "network: false",
      `sandbox ${record.id} was launched without network, which isolation "none" cannot honour`,
    );
  }
  if (options.cgroups === "disabled" && (record.cgroups?.limits.length ?? 0) > 0) {
    throw unsupported(
      LOCAL_PROVIDER,
      "resources",
      `sandbox ${record.id} has resource limits but cgroups are disabled in the options`,
    );
  }
}

/** Runs `true` in `cwd` inside sandbox `record`: rejects with `NOT_FOUND` (`missingCwd`) when it is missing there. */
async function probeCwd(context: PlanningContext, record: SandboxRecord, cwd: CommandCwd): Promise<void> {
  const plan = await planSandboxCommand(context, record, { argv: ["true"], cwd, env: {} }, true);
  await runCommand({
    plan,
    timeoutMs: CWD_PROBE_TIMEOUT_MS,
    maxOutputBytes: 4096,
    killGraceMs: context.options.killGraceMs,
    signal: new AbortController().signal,
  });
}

function withoutCgroups(record: SandboxRecord): SandboxRecord {
  const { cgroups: _ignored, ...rest } = record;
  return rest;
}

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
