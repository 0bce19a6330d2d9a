/**
 * Snapshots: `POST /v5/vms/{id}/snapshot` (the SDK's `vm.snapshot()`) and
 * `GET`/`DELETE /v5/snapshots[/{id}]` (`freestyle.vms.snapshots`). A snapshot
 * keeps the VM's files for real, as the backend runtime's own snapshot of
 * the VM's sandbox; a VM created from it (`POST /v5/vms` with its id or slug
 * as `snapshotId`) is a new backend sandbox launched from that. The VM keeps
 * running throughout. Memory is not kept: see the README's guesses.
 *
 * @module
 */

import type { SandboxRuntime } from "@sandport/core";
import type { EmulatorServer } from "../harness/http-server.js";
import { emptyReply, jsonReply, notEmulated, vmNotFound } from "./api.js";
import type { FreestyleContext } from "./context.js";
import { fromBackendError } from "./errors.js";
import { integerParam } from "./list.js";
import { addApiRoute, vmOf } from "./routes.js";
import { snapshotJson, snapshotNotFound } from "./snapshot-shelf.js";
import { checkSlug, optionalString, parseLimit } from "./vm-options.js";

const SNAPSHOT_TIMEOUT_MS = 120_000;
const MAX_LIMIT = 1000;

/** Register the snapshot routes. */
export function registerSnapshotRoutes(server: EmulatorServer, context: FreestyleContext): void {
  const { shelf } = context;
  const add = (method: string, pattern: string, handler: Parameters<typeof addApiRoute>[4]) =>
    addApiRoute(server, context, method, pattern, handler);

  add("POST", "/v5/vms/:id/snapshot", async (call) => {
    const vm = vmOf(call, context);
    const body = call.json();
    const slug = optionalString(body, "slug") ?? null;
    if (slug !== null) {
      checkSlug(slug);
      shelf.checkSlugFree(slug);
    }
    const displayName = optionalString(body, "displayName") ?? null;
    for (const field of ["autoDeleteSeconds", "ttlSeconds"] as const) {
      if (parseLimit(body, field) != null) throw notEmulated(`${field} on a snapshot (it is never deleted by itself)`);
    }
    const backend = snapshotting(context.backend);
    let taken: Awaited<ReturnType<typeof backend.snapshot>>;
    try {
      taken = await backend.snapshot(vm.data.handle, { timeoutMs: SNAPSHOT_TIMEOUT_MS, signal: call.signal });
    } catch (error) {
      // The VM's sandbox went away meanwhile (a delete, a lifetime): the VM is gone.
      throw fromBackendError(error, vmNotFound(vm.id));
    }
    // Claimed once the files are kept: a slug taken meanwhile refuses this one, and its backend copy goes.
    if (slug !== null) {
      try {
        shelf.checkSlugFree(slug);
      } catch (error) {
        await backend.deleteSnapshot(taken).catch(() => undefined);
        throw error;
      }
    }
    const now = Date.now();
    const stored = {
      id: shelf.newId(),
      slug,
      displayName,
      sourceVmId: vm.id,
      createdAt: now,
      updatedAt: now,
      lastUsedAt: null,
      backend: taken,
    };
    shelf.add(stored);
    const json = snapshotJson(stored);
    return jsonReply(200, { snapshotId: stored.id, sourceVmId: vm.id, snapshot: json });
  });

  add("GET", "/v5/snapshots", (call) => {
    const sourceVmId = call.query.get("sourceVmId");
    const limit = Math.min(integerParam(call.query, "limit", 1, MAX_LIMIT) ?? context.pageSize, context.pageSize);
    const offset = integerParam(call.query, "offset", 0, Number.MAX_SAFE_INTEGER) ?? 0;
    const matching = shelf.all().filter((stored) => !sourceVmId || stored.sourceVmId === sourceVmId);
    return jsonReply(200, {
      snapshots: matching.slice(offset, offset + limit).map(snapshotJson),
      totalCount: matching.length,
    });
  });

  add("GET", "/v5/snapshots/:id", (call) => {
    const idOrSlug = call.params.id ?? "";
    const stored = shelf.find(idOrSlug);
    if (!stored) throw snapshotNotFound(idOrSlug);
    return jsonReply(200, snapshotJson(stored));
  });

  add("DELETE", "/v5/snapshots/:id", async (call) => {
    const idOrSlug = call.params.id ?? "";
    const stored = shelf.find(idOrSlug);
    if (!stored) throw snapshotNotFound(idOrSlug);
    shelf.remove(stored.id);
    // Gone from the API at once; VMs created from it keep their own files.
    try {
      await snapshotting(context.backend).deleteSnapshot(stored.backend, { timeoutMs: SNAPSHOT_TIMEOUT_MS });
    } catch (error) {
      throw fromBackendError(error);
    }
    return emptyReply();
  });
}

/** The backend's snapshot members, or `NOT_EMULATED` when the backend runtime has none. */
export function snapshotting(
  backend: SandboxRuntime,
): Required<Pick<SandboxRuntime, "snapshot" | "deleteSnapshot" | "listSnapshots">> {
  const { snapshot, deleteSnapshot, listSnapshots } = backend;
  if (snapshot === undefined || deleteSnapshot === undefined || listSnapshots === undefined) {
    throw notEmulated("snapshots: the emulator's backend runtime takes none");
  }
  return {
    snapshot: snapshot.bind(backend),
    deleteSnapshot: deleteSnapshot.bind(backend),
    listSnapshots: listSnapshots.bind(backend),
  };
}
