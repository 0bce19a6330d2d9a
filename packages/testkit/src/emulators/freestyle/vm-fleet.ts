/**
 * The VMs of one emulator: each a sandbox on the backend runtime, with its
 * state, runs and limit timers. The route modules reach it through
 * `FreestyleContext`.
 *
 * @module
 */

import type { NetworkPolicy, SandboxRuntime } from "@sandport/core";
import { destroyBackendSandbox } from "../harness/backend.js";
import { SandboxRegistry } from "../harness/sandbox-registry.js";
import type { CreateVmInput, FreestyleVm, FreestyleVmData } from "./context.js";
import { fromBackendError } from "./errors.js";
import { armTimers, beginRun, clearTimers, endRun, type LimitActions } from "./lifecycle.js";
import { claimSlug } from "./slugs.js";
import { snapshotNotFound } from "./snapshot-shelf.js";
import { UploadSessions } from "./uploads.js";

const LAUNCH_TIMEOUT_MS = 120_000;
const DESTROY_TIMEOUT_MS = 60_000;

/** The live VMs and their lifecycle operations (documented on `FreestyleContext`). */
export class VmFleet {
  readonly registry = new SandboxRegistry<FreestyleVmData>();
  readonly uploads = new UploadSessions();
  readonly #backend: () => SandboxRuntime;
  readonly #limitActions: LimitActions = {
    pause: (vm) => {
      if (this.registry.get(vm.id) === vm) this.pauseVm(vm);
    },
    remove: (vm) => {
      // The VM is out of the registry at once; a failed workspace cleanup has no one to report to.
      this.deleteVm(vm).catch(() => undefined);
    },
  };
  #closed = false;

  constructor(backend: () => SandboxRuntime) {
    this.#backend = backend;
  }

  findVm(idOrSlug: string): FreestyleVm | undefined {
    return this.registry.get(idOrSlug) ?? this.registry.all().find((vm) => vm.data.slug === idOrSlug);
  }

  async createVm(input: CreateVmInput): Promise<FreestyleVm> {
    if (this.#closed) throw new Error("the emulator is stopping");
    // Fail on a taken slug before paying for a launch; it is claimed for real once the VM exists.
    if (input.slug !== null && !input.reassignSlug) claimSlug(this.registry.all(), input.slug, false, undefined);
    const backend = this.#backend();
    let handle: FreestyleVmData["handle"];
    try {
      const from = input.restoreFrom === undefined ? {} : { from: input.restoreFrom };
      handle = await backend.launch({ network: backendNetwork(input), ...from }, { timeoutMs: LAUNCH_TIMEOUT_MS });
    } catch (error) {
      throw fromBackendError(error, input.restoreFrom && snapshotNotFound(input.snapshotId));
    }
    try {
      if (this.#closed) throw new Error("the emulator is stopping");
      if (input.slug !== null) claimSlug(this.registry.all(), input.slug, input.reassignSlug, undefined);
    } catch (error) {
      await destroyBackendSandbox(backend, handle, DESTROY_TIMEOUT_MS).catch(() => undefined);
      throw error;
    }
    const now = Date.now();
    const vm: FreestyleVm = {
      id: this.registry.newId("", 20),
      metadata: input.metadata,
      foreign: input.foreign,
      state: "stopped",
      createdAt: now,
      data: {
        slug: input.slug,
        displayName: input.displayName,
        snapshotId: input.snapshotId,
        limits: { ...input.limits },
        automaticRestart: input.automaticRestart,
        firewallRules: input.firewallRules,
        publicEgress: input.publicEgress,
        egressRanges: input.egressRanges,
        legacyWorkdir: input.legacyWorkdir,
        handle,
        updatedAt: now,
        runStartedAt: undefined,
        idleSince: now,
        finishedRunMs: 0,
        timers: { ttl: undefined, run: undefined, autoDelete: undefined },
      },
    };
    beginRun(vm, now);
    this.registry.add(vm);
    armTimers(vm, this.#limitActions, now);
    return vm;
  }

  async deleteVm(vm: FreestyleVm): Promise<void> {
    if (!this.registry.delete(vm.id)) return;
    clearTimers(vm);
    endRun(vm, "stopped");
    this.uploads.dropVm(vm.id);
    await destroyBackendSandbox(this.#backend(), vm.data.handle, DESTROY_TIMEOUT_MS);
  }

  pauseVm(vm: FreestyleVm): void {
    if (vm.state !== "running") return;
    endRun(vm, "paused");
    armTimers(vm, this.#limitActions);
  }

  stopVm(vm: FreestyleVm): void {
    endRun(vm, "stopped");
    armTimers(vm, this.#limitActions);
  }

  startVm(vm: FreestyleVm): void {
    if (vm.state === "running") return;
    beginRun(vm);
    armTimers(vm, this.#limitActions);
  }

  rearm(vm: FreestyleVm): void {
    armTimers(vm, this.#limitActions);
  }

  /** Refuse new VMs, delete every VM and drop upload sessions. */
  async close(): Promise<void> {
    this.#closed = true;
    this.uploads.clear();
    await Promise.allSettled(this.registry.all().map((vm) => this.deleteVm(vm)));
  }
}

/**
 * The port policy that enforces a VM's outbound firewall rules on the backend:
 * the public Internet is everything the backend reaches; else the outbound
 * ranges are an allow list; no outbound rule is no network.
 */
function backendNetwork(input: CreateVmInput): NetworkPolicy {
  if (input.publicEgress) return "all";
  return input.egressRanges.length === 0 ? "none" : { allow: [...input.egressRanges] };
}
