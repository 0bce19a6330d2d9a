import {
  type Labels,
  type NetworkPolicy,
  type ResourceLimits,
  SandportError,
  validateLaunchSpec,
} from "@sandport/core";
import { setFrozen } from "../cgroups/freezer.js";
import { AnchoredDirectory } from "../files/anchored-directory.js";
import { errorCode } from "../files/file-errors.js";
import type { LocalHandle } from "../handle.js";
import { LOCAL_PROVIDER } from "../options.js";
import { copyTree } from "../snapshots/copy-tree.js";
import type { SandboxRecord } from "../store/sandbox-record.js";
import type { SandboxAccess } from "./sandbox-access.js";
import { isStopped } from "./sandbox-lifecycle.js";

/**
 * Forks live sandbox `id`: launches a new sandbox like it (the same labels,
 * or `labels` in their place,
 * launch env, network, ports, resource limits and what is left of its
 * lifetime; no launch key, which names one sandbox) whose workspace starts as
 * a copy of the source's. Where the source has a freezer cgroup (every
 * sandbox of a runtime that can `stop`), its processes are frozen for the
 * copy and thawed after, so the copy is the workspace at one instant: no
 * command can write while it is taken. A stopped source stays stopped. Without
 * a freezer the copy is taken like a snapshot's: a command writing meanwhile
 * may leave a file half-written in it. Forks of one source from several
 * processes at once, or a `start` called during a fork, can thaw it before
 * a copy ends (the freezer is one switch, not a count). Memory is not copied: no process of
 * the source runs in the fork. `NOT_FOUND` when the source is absent or goes
 * away during the copy (the fork is then removed again).
 */
export async function forkSandbox(
  access: SandboxAccess,
  fork: { readonly id: string; readonly labels: Labels | undefined },
  signal: AbortSignal,
): Promise<LocalHandle> {
  const { id } = fork;
  const source = await access.requireLive(id);
  const spec = validateLaunchSpec({ ...specLike(source), labels: fork.labels ?? source.labels }, LOCAL_PROVIDER);
  // Mounted again first where the source's workspace is bounded (as for a snapshot).
  const sourceWorkspace = await access.workspaceDirectory(id);
  // The copy belongs to the fork's own user (`owner`: its uid, when the runtime is root).
  return access.launch(spec, signal, async (workspace, owner) => {
    const files = openWorkspace(sourceWorkspace, id);
    try {
      await whileFrozen(access, source, () => copyTree(files, workspace, owner ? { owner, signal } : { signal }));
    } finally {
      files.close();
    }
  });
}

/** The launch spec that gives a new sandbox what `source` was launched with (its labels and launch key aside). */
function specLike(source: SandboxRecord) {
  const remainingMs = source.expiresAt === undefined ? undefined : Date.parse(source.expiresAt) - Date.now();
  return {
    env: source.env,
    network: networkOf(source),
    ...explicitResources(source),
    ...(source.ports ? { ports: source.ports } : {}),
    ...(remainingMs === undefined ? {} : { lifetimeMs: Math.max(1, Math.ceil(remainingMs)) }),
  };
}

/**
 * The limits `source`'s launch asked for, without those it got from its
 * runtime's defaults: the fork gets the forking runtime's defaults in their
 * place (where that runtime can enforce them), as any launch does.
 */
function explicitResources(source: SandboxRecord): { resources?: ResourceLimits } {
  const resources = Object.fromEntries(
    Object.entries(source.resources ?? {}).filter(
      ([field]) => !source.defaults?.includes(field as keyof ResourceLimits),
    ),
  );
  return Object.keys(resources).length > 0 ? { resources } : {};
}

/** The network policy `source` was launched with, as its record keeps it. */
function networkOf(source: SandboxRecord): NetworkPolicy {
  if (typeof source.egress === "object") return source.egress;
  return source.egress === "all" || source.network ? "all" : "none";
}

/**
 * Freezes held by forks running in this process, by freezer directory: the
 * first fork of a source freezes it, the last one to finish thaws it, so
 * concurrent forks of one source never thaw it under each other's copy.
 */
const holds = new Map<string, { count: number; readonly frozen: Promise<void> }>();

/**
 * Runs `work` with the source's processes frozen, when it has a freezer and
 * is not stopped already. Thawed after (by the last fork of it in this
 * process to finish), unless a `stop` came meanwhile (its file is there):
 * then it stays frozen, as `stop` left it. The freeze is not bound to the
 * caller's signal, which other forks of the same source may not share; the
 * copy is.
 */
async function whileFrozen<T>(access: SandboxAccess, source: SandboxRecord, work: () => Promise<T>): Promise<T> {
  const freezer = source.cgroups?.freezer?.directory;
  const store = access.store();
  if (freezer === undefined || (await isStopped(store, source.id))) return work();
  let hold = holds.get(freezer);
  if (hold) hold.count++;
  else {
    hold = { count: 1, frozen: setFrozen(freezer, true, AbortSignal.timeout(FREEZER_SETTLE_MS)) };
    holds.set(freezer, hold);
  }
  try {
    await hold.frozen;
    return await work();
  } finally {
    hold.count--;
    if (hold.count === 0) {
      holds.delete(freezer);
      if (!(await isStopped(store, source.id))) {
        await setFrozen(freezer, false, AbortSignal.timeout(FREEZER_SETTLE_MS)).catch(ignoreGone);
        // A stop that wrote its file after the look above, and found the freezer already frozen, is honoured.
        if (await isStopped(store, source.id)) await setFrozen(freezer, true, AbortSignal.timeout(FREEZER_SETTLE_MS));
      }
    }
  }
}

/** How long a thaw (or a stop's freeze honoured again) may take; it is not bound to the caller's signal, which may have fired. */
const FREEZER_SETTLE_MS = 30_000;

/** A freezer that went away with its sandbox (destroyed meanwhile) has nothing left to thaw. */
function ignoreGone(error: unknown): void {
  if (errorCode(error) !== "ENOENT") throw error;
}

/** Holds the source's workspace open: `NOT_FOUND` when the sandbox went away meanwhile. */
function openWorkspace(path: string, sandboxId: string): AnchoredDirectory {
  try {
    return AnchoredDirectory.open(path);
  } catch (error) {
    if (errorCode(error) === "ENOENT") {
      throw new SandportError({
        code: "NOT_FOUND",
        provider: LOCAL_PROVIDER,
        message: `sandbox ${sandboxId} was destroyed while it was forked`,
        details: { sandboxId },
        cause: error,
      });
    }
    throw error;
  }
}
