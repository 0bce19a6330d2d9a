/**
 * The legacy `/v1` VM API that `freestyle-sandboxes` 0.1.x calls: create,
 * list, get, delete, start, stop, suspend, kill and `exec-await`, over the
 * same VMs and backend as `/v5` (a `paused` VM is `suspended` here). `/v1`
 * has no firewall, so its VMs reach the network; its `workdir` is where
 * commands start and relative file paths resolve (default: the workspace
 * directory; created with the VM). Files are in `legacy-v1-files.ts`.
 *
 * @module
 */

import type { EmulatorServer } from "../harness/http-server.js";
import { ApiError, badRequest, jsonReply, notEmulated } from "./api.js";
import type { FreestyleContext, FreestyleVm, VmState } from "./context.js";
import { runExecAwait } from "./exec.js";
import { VmFiles } from "./files.js";
import { registerLegacyFileRoutes } from "./legacy-v1-files.js";
import { toWorkspaceRelative } from "./paths.js";
import { addApiRoute, vmOf } from "./routes.js";
import { BASE_SNAPSHOTS, DEFAULT_SNAPSHOT } from "./vm-options.js";

/** Header the legacy SDK names a Linux user in. */
export const LEGACY_LINUX_USER_HEADER = "x-freestyle-vm-linux-user-id";

const DEFAULT_TIMEOUT_MS = 30_000;
/** The legacy exec path's cap (five minutes). */
const MAX_TIMEOUT_MS = 300_000;
/** Create fields the emulator accepts; any other with a value is `NOT_EMULATED`. */
const ACCEPTED_CREATE_FIELDS = new Set([
  "idleTimeoutSeconds",
  "workdir",
  "snapshotId",
  "waitForReadySignal",
  "readySignalTimeoutSeconds",
  "persistence",
  "recreate",
  "git",
]);

/** `/v1` state names. */
function legacyState(state: VmState): string {
  return state === "paused" ? "suspended" : state === "pausing" ? "suspending" : state;
}

/** Register the `/v1` routes and the legacy background poll route. */
export function registerLegacyRoutes(server: EmulatorServer, context: FreestyleContext): void {
  const add = (method: string, pattern: string, handler: Parameters<typeof addApiRoute>[4]) =>
    addApiRoute(server, context, method, pattern, handler);
  const files = new VmFiles(context);

  add("POST", "/v1/vms", async (call) => {
    const body = call.json();
    for (const [field, value] of Object.entries(body)) {
      if (ACCEPTED_CREATE_FIELDS.has(field) || value === null || value === undefined) continue;
      if (Array.isArray(value) && value.length === 0) continue;
      if (typeof value === "object" && Object.keys(value).length === 0) continue;
      throw notEmulated(`${field} on /v1/vms`);
    }
    if (body.recreate === true) throw notEmulated("recreate on /v1/vms");
    if (body.git !== undefined && body.git !== null && Object.keys(body.git).length > 0) throw notEmulated("git");
    const snapshotId = typeof body.snapshotId === "string" ? body.snapshotId : DEFAULT_SNAPSHOT;
    if (!(BASE_SNAPSHOTS as readonly string[]).includes(snapshotId) && !context.snapshots.has(snapshotId)) {
      throw new ApiError(404, "SNAPSHOT_NOT_FOUND", `snapshot not found: ${snapshotId}`);
    }
    const workdir = body.workdir ?? null;
    if (workdir !== null && typeof workdir !== "string") throw badRequest("workdir must be a string");
    const workdirRelative = workdir === null ? "" : toWorkspaceRelative(context.workspaceDirectory, workdir);
    const idle = body.idleTimeoutSeconds;
    if (idle !== undefined && idle !== null && (typeof idle !== "number" || !Number.isInteger(idle) || idle < 0)) {
      throw badRequest("idleTimeoutSeconds must be a non-negative integer");
    }
    const vm = await context.createVm({
      slug: null,
      reassignSlug: false,
      displayName: null,
      snapshotId,
      metadata: {},
      limits: {
        idleTimeoutSeconds: typeof idle === "number" ? idle : null,
        autoDeleteSeconds: null,
        ttlSeconds: null,
        maxRunSeconds: null,
        maxRunTotalSeconds: null,
      },
      automaticRestart: true,
      firewallRules: [],
      publicEgress: true,
      egressRanges: [],
      legacyWorkdir: workdir,
      foreign: false,
    });
    if (workdirRelative !== "") {
      try {
        await files.mkdir(vm, workdirRelative, call.signal);
      } catch (error) {
        await context.deleteVm(vm).catch(() => undefined);
        throw error;
      }
    }
    return jsonReply(200, { id: vm.id, domains: [], consoleUrl: null, snapshotId });
  });
  add("GET", "/v1/vms", () => {
    const vms = context.registry.all().sort((left, right) => left.createdAt - right.createdAt);
    const count = (state: VmState) => vms.filter((vm) => vm.state === state).length;
    return jsonReply(200, {
      vms: vms.map((vm) => ({
        ...legacyInfo(vm),
        createdAt: new Date(vm.createdAt).toISOString(),
        snapshotId: vm.data.snapshotId,
        deleted: false,
      })),
      totalCount: vms.length,
      runningCount: count("running"),
      startingCount: count("starting"),
      suspendedCount: count("paused"),
      stoppedCount: count("stopped"),
    });
  });
  add("GET", "/v1/vms/:id", (call) => jsonReply(200, legacyInfo(vmOf(call, context))));
  add("DELETE", "/v1/vms/:id", async (call) => {
    const vm = vmOf(call, context);
    await context.deleteVm(vm);
    return jsonReply(200, { id: vm.id });
  });
  add("POST", "/v1/vms/:id/start", (call) => {
    const vm = vmOf(call, context);
    context.startVm(vm);
    return jsonReply(200, { id: vm.id, domains: [], console_url: null });
  });
  add("POST", "/v1/vms/:id/stop", (call) => {
    const vm = vmOf(call, context);
    context.stopVm(vm);
    return jsonReply(200, { vmId: vm.id, vmInstanceId: vm.id });
  });
  add("POST", "/v1/vms/:id/kill", (call) => {
    const vm = vmOf(call, context);
    context.stopVm(vm);
    return jsonReply(200, { id: vm.id });
  });
  add("POST", "/v1/vms/:id/suspend", (call) => {
    const vm = vmOf(call, context);
    if (vm.state !== "running") {
      throw new ApiError(400, "VM_NOT_RUNNING", `VM is not running: ${vm.id}`);
    }
    context.pauseVm(vm);
    // No memory snapshot exists, so there is no layer to name.
    return jsonReply(200, { id: vm.id, vmInstanceId: vm.id, snapshotLayerId: "" });
  });
  add("POST", "/v1/vms/:id/exec-await", async (call) => {
    const vm = vmOf(call, context);
    const body = call.json();
    if (typeof body.command !== "string" || body.command.trim() === "") {
      throw badRequest("command must be a non-empty string");
    }
    if (body.terminal !== undefined && body.terminal !== null) throw notEmulated("terminal (interactive sessions)");
    const user = call.exchange.header(LEGACY_LINUX_USER_HEADER);
    if (user !== undefined && user !== context.linuxUser) {
      throw new ApiError(404, "USER_NOT_FOUND", `User not found: ${user}`);
    }
    const timeoutMs = body.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (typeof timeoutMs !== "number" || !Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_TIMEOUT_MS) {
      throw badRequest(`timeoutMs must be an integer from 1 to ${MAX_TIMEOUT_MS}`);
    }
    context.startVm(vm);
    const cwd =
      vm.data.legacyWorkdir === null
        ? undefined
        : toWorkspaceRelative(context.workspaceDirectory, vm.data.legacyWorkdir);
    const request = { command: body.command, env: undefined, stdin: undefined, timeoutMs };
    return jsonReply(200, await runExecAwait(context, vm, request, call.signal, cwd || undefined));
  });
  add("GET", "/auth/v1/background-requests/:requestId", (call) => context.background.poll(call.params.requestId ?? ""));
  registerLegacyFileRoutes(server, context);
}

function legacyInfo(vm: FreestyleVm): Record<string, unknown> {
  return {
    id: vm.id,
    vmInstanceId: vm.id,
    state: legacyState(vm.state as VmState),
    lastNetworkActivity: null,
    cpuTimeSeconds: null,
  };
}
