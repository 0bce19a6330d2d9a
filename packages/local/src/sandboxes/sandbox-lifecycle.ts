import { access, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { invalidRequest, unsupported } from "@sandport/core";
import { setFrozen } from "../cgroups/freezer.js";
import { LOCAL_PROVIDER } from "../options.js";
import type { SandboxRecord } from "../store/sandbox-record.js";
import { notFound, type SandboxStore } from "../store/sandbox-store.js";

/**
 * Name of the file, inside a sandbox directory (outside the workspace), whose
 * presence says the sandbox is stopped. It is on disk so that every runtime
 * over the same root, in any process, refuses commands alike; the freezer
 * itself is the kernel's.
 */
const STOPPED_FILE = "stopped";

/**
 * Stops a sandbox: records it stopped (from then on commands are refused),
 * then freezes every process in its freezer cgroup and waits until the kernel
 * says all are frozen. A command that passed the check just before is frozen
 * with the rest when it joins the cgroup. Stopping a stopped sandbox is a no-op.
 * `UNSUPPORTED` for a sandbox launched without a freezer (by a runtime with
 * `cgroups: "disabled"`, or an older version); `NOT_FOUND` when it was
 * destroyed meanwhile.
 */
export async function stopSandbox(store: SandboxStore, record: SandboxRecord, signal: AbortSignal): Promise<void> {
  const freezer = requireFreezer(record);
  await gone(store, record.id, writeFile(stoppedPath(store, record.id), ""));
  await gone(store, record.id, setFrozen(freezer, true, signal));
}

/**
 * Resumes a stopped sandbox: thaws its processes, waits until the kernel says
 * none is frozen, then lets commands in again. Starting a running sandbox is a no-op.
 */
export async function startSandbox(store: SandboxStore, record: SandboxRecord, signal: AbortSignal): Promise<void> {
  const freezer = requireFreezer(record);
  await gone(store, record.id, setFrozen(freezer, false, signal));
  await unlink(stoppedPath(store, record.id)).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "ENOENT") throw error;
  });
}

/**
 * Refuses a command in a stopped sandbox with `INVALID_REQUEST` (`details.state:
 * "stopped"`), before anything is spawned: its processes are frozen, and a new
 * command would freeze as it joined them, so the caller would wait for its
 * run budget instead of hearing why. Not `UNSUPPORTED` (the same command runs
 * after `start`) nor `NOT_FOUND` (the sandbox is there, files and all).
 */
export async function refuseIfStopped(store: SandboxStore, id: string): Promise<void> {
  if (await isStopped(store, id)) {
    throw invalidRequest(
      `sandbox ${id} is stopped: call start before running commands in it`,
      { sandboxId: id, state: "stopped" },
      LOCAL_PROVIDER,
    );
  }
}

/** Whether sandbox `id` is recorded stopped (its processes frozen by `stop`, until `start`). */
export async function isStopped(store: SandboxStore, id: string): Promise<boolean> {
  return access(stoppedPath(store, id)).then(
    () => true,
    () => false,
  );
}

function stoppedPath(store: SandboxStore, id: string): string {
  return join(store.sandboxDirectory(id), STOPPED_FILE);
}

function requireFreezer(record: SandboxRecord): string {
  const freezer = record.cgroups?.freezer;
  if (freezer) return freezer.directory;
  throw unsupported(
    LOCAL_PROVIDER,
    "stop/start",
    `sandbox ${record.id} was launched without a freezer cgroup (by a runtime with cgroups disabled, where none was available, or by an older version)`,
  );
}

/** `work`, with a missing file or cgroup (the sandbox was destroyed meanwhile) reported as `NOT_FOUND`. */
async function gone(store: SandboxStore, id: string, work: Promise<void>): Promise<void> {
  try {
    await work;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT" && (await store.read(id)).state === "absent") {
      throw notFound(id);
    }
    throw error;
  }
}
