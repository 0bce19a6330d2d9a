/**
 * A VM's runs and the timers that enforce its limits: `ttlSeconds` deletes,
 * `maxRunSeconds` and `maxRunTotalSeconds` pause, `autoDeleteSeconds` deletes
 * a VM that has not been running for that long.
 *
 * @module
 */

import { ApiError } from "./api.js";
import type { FreestyleVm, VmState } from "./context.js";

/** What a firing timer does. */
export interface LimitActions {
  pause(vm: FreestyleVm): void;
  remove(vm: FreestyleVm): void;
}

/** Milliseconds the VM has run in all, the current run included. */
export function totalRunMs(vm: FreestyleVm, now = Date.now()): number {
  const current = vm.data.runStartedAt === undefined ? 0 : now - vm.data.runStartedAt;
  return vm.data.finishedRunMs + current;
}

/** Milliseconds left of the total run budget, or `undefined` without one. */
function remainingBudgetMs(vm: FreestyleVm, now: number): number | undefined {
  const total = vm.data.limits.maxRunTotalSeconds;
  return total === null ? undefined : total * 1000 - totalRunMs(vm, now);
}

/** Start a run. Throws 409 when the total run budget is spent. No-op when running. */
export function beginRun(vm: FreestyleVm, now = Date.now()): void {
  if (vm.state === "running") return;
  const remaining = remainingBudgetMs(vm, now);
  if (remaining !== undefined && remaining <= 0) {
    throw new ApiError(
      409,
      "VM_RUN_BUDGET_EXHAUSTED",
      `VM ${vm.id} has spent its maxRunTotalSeconds budget; raise it to start the VM again`,
    );
  }
  vm.state = "running";
  vm.data.runStartedAt = now;
  vm.data.idleSince = undefined;
  vm.data.updatedAt = now;
}

/** End the current run, leaving the VM `paused` or `stopped`. No-op when not running. */
export function endRun(vm: FreestyleVm, state: Extract<VmState, "paused" | "stopped">, now = Date.now()): void {
  if (vm.state !== "running") {
    if (vm.state !== state) {
      vm.state = state;
      vm.data.updatedAt = now;
    }
    return;
  }
  vm.data.finishedRunMs += now - (vm.data.runStartedAt ?? now);
  vm.data.runStartedAt = undefined;
  vm.data.idleSince = now;
  vm.state = state;
  vm.data.updatedAt = now;
}

/** Stop every timer of the VM. */
export function clearTimers(vm: FreestyleVm): void {
  const timers = vm.data.timers;
  clearTimeout(timers.ttl);
  clearTimeout(timers.run);
  clearTimeout(timers.autoDelete);
  timers.ttl = undefined;
  timers.run = undefined;
  timers.autoDelete = undefined;
}

/** (Re-)arm the timers for the VM's current state and limits. */
export function armTimers(vm: FreestyleVm, actions: LimitActions, now = Date.now()): void {
  clearTimers(vm);
  const { limits, timers } = vm.data;
  // Node's timers may fire a millisecond before Date.now() reaches their deadline: re-armed until it
  // has, an action records at least the limit (a run paused at its budget has spent all of it, so a
  // start right after is refused rather than given the missing millisecond).
  const at = (slot: "ttl" | "run" | "autoDelete", when: number, action: () => void) => {
    const arm = (ms: number) => {
      const timer = setTimeout(fire, ms);
      timer.unref();
      timers[slot] = timer;
    };
    const fire = () => {
      const early = when - Date.now();
      if (early > 0) arm(early);
      else action();
    };
    arm(Math.max(0, when - now));
  };
  if (limits.ttlSeconds !== null) {
    at("ttl", vm.createdAt + limits.ttlSeconds * 1000, () => actions.remove(vm));
  }
  if (vm.state === "running") {
    const deadlines: number[] = [];
    if (limits.maxRunSeconds !== null) deadlines.push((vm.data.runStartedAt ?? now) + limits.maxRunSeconds * 1000);
    const remaining = remainingBudgetMs(vm, now);
    if (remaining !== undefined) deadlines.push(now + remaining);
    if (deadlines.length > 0) at("run", Math.min(...deadlines), () => actions.pause(vm));
  } else if (limits.autoDeleteSeconds !== null) {
    at("autoDelete", (vm.data.idleSince ?? now) + limits.autoDeleteSeconds * 1000, () => actions.remove(vm));
  }
}
