/**
 * The `/v5/vms` control plane: create, list, get, update, delete, start and
 * pause, addressed by id or slug.
 *
 * @module
 */

import type { EmulatorServer } from "../harness/http-server.js";
import { emptyReply, jsonReply } from "./api.js";
import type { FreestyleContext } from "./context.js";
import { listVms } from "./list.js";
import { addApiRoute, vmOf } from "./routes.js";
import { claimSlug } from "./slugs.js";
import { createdVmJson, vmJson } from "./vm-json.js";
import { checkMetadataSize, parseCreateVm, parseUpdateVm } from "./vm-options.js";

/** Register the VM routes. */
export function registerVmRoutes(server: EmulatorServer, context: FreestyleContext): void {
  const add = (method: string, pattern: string, handler: Parameters<typeof addApiRoute>[4]) =>
    addApiRoute(server, context, method, pattern, handler);

  add("POST", "/v5/vms", async (call) => {
    const known = (name: string) => context.snapshots.has(name) || context.shelf.find(name) !== undefined;
    const request = parseCreateVm(call.json(), known);
    // A snapshot of the emulator's own is booted as its backend copy, and reported by its id (the slug may move).
    const stored = context.shelf.find(request.snapshotId);
    const restore = stored === undefined ? {} : { snapshotId: stored.id, restoreFrom: stored.backend };
    const vm = await context.createVm({ ...request, ...restore, legacyWorkdir: null, foreign: false });
    if (stored !== undefined) stored.lastUsedAt = Date.now();
    return jsonReply(200, createdVmJson(vm));
  });
  add("GET", "/v5/vms", (call) => listVms(call, context));
  add("GET", "/v5/vms/:id", (call) => jsonReply(200, vmJson(vmOf(call, context))));
  add("PATCH", "/v5/vms/:id", (call) => {
    const vm = vmOf(call, context);
    const update = parseUpdateVm(call.json());
    let metadata = vm.metadata;
    if (update.metadata) {
      metadata = { ...vm.metadata };
      for (const [key, value] of Object.entries(update.metadata)) {
        if (value === "") delete metadata[key];
        else metadata[key] = value;
      }
      checkMetadataSize(metadata);
    }
    // Claimed last: with reassignSlug it takes the slug from its holder, which must not happen for a refused update.
    if (update.slug) claimSlug(context.registry.all(), update.slug, update.reassignSlug, vm.id);
    vm.metadata = metadata;
    if (update.slug !== undefined) vm.data.slug = update.slug;
    if (update.displayName !== undefined) vm.data.displayName = update.displayName;
    if (update.automaticRestart !== undefined) vm.data.automaticRestart = update.automaticRestart;
    Object.assign(vm.data.limits, update.limits);
    vm.data.updatedAt = Date.now();
    context.rearm(vm);
    return jsonReply(200, vmJson(vm));
  });
  add("DELETE", "/v5/vms/:id", async (call) => {
    await context.deleteVm(vmOf(call, context));
    return emptyReply();
  });
  add("POST", "/v5/vms/:id/start", (call) => {
    const vm = vmOf(call, context);
    context.startVm(vm);
    return jsonReply(200, vmJson(vm));
  });
  add("POST", "/v5/vms/:id/pause", (call) => {
    const vm = vmOf(call, context);
    context.pauseVm(vm);
    return jsonReply(200, vmJson(vm));
  });
}
