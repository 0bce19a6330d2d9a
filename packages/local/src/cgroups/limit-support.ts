import { accessSync, constants, readFileSync } from "node:fs";
import { join } from "node:path";
import { type LimitController, ownDirectory, parseMount } from "./cgroup-host.js";

/** Whether one resource limit can be enforced by this process; when not, why. */
export type LimitSupport = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/** The verdict for each cgroup-enforced limit: `memoryMiB`, `cpus`, `maxProcesses`. */
export interface LimitsSupport {
  readonly memory: LimitSupport;
  readonly cpu: LimitSupport;
  readonly pids: LimitSupport;
}

/** What {@link judgeLimits} decides from: the process's platform, cgroup view and a few file checks. */
export interface LimitFacts {
  /** `process.platform`. */
  readonly platform: string;
  /** `/proc/self/mountinfo`. */
  readonly mountinfo: string;
  /** `/proc/self/cgroup`. */
  readonly membership: string;
  /** Whether this process may create a child cgroup in `directory` (write access to it). */
  readonly writable: (directory: string) => boolean;
  /** A small file's text, `undefined` when it cannot be read (a cgroup's `cgroup.controllers`, `cgroup.subtree_control`). */
  readonly read: (path: string) => string | undefined;
  /** Whether `path` exists (a cgroup's `cgroup.type`, which only non-root cgroups have). */
  readonly exists: (path: string) => boolean;
  /**
   * As root, commands join their cgroups and then drop to the sandbox user
   * with `setpriv`: its path when that is needed and it is missing, else `undefined`.
   */
  readonly missingSetpriv?: string;
}

/**
 * Decides, without creating anything, which limits sandboxes launched by this
 * process can carry, the way `createSandboxCgroups` will place them: a
 * controller is usable in the unified (v2) hierarchy when this process's own
 * cgroup lists it in `cgroup.controllers`, its directory is writable, and the
 * controller is already in `cgroup.subtree_control` or can be put there (only
 * in the hierarchy's true root, which has no `cgroup.type`: anywhere else
 * this very process sits in the cgroup, and the kernel refuses to enable
 * controllers for the children of a cgroup with processes); otherwise in a
 * legacy (v1) hierarchy mounted with it whose own directory is writable. Pure,
 * for tests; {@link limitsSupport} feeds it this process's facts.
 */
export function judgeLimits(facts: LimitFacts): LimitsSupport {
  const refuse = (reason: string): LimitsSupport => {
    const verdict = { ok: false, reason } as const;
    return { memory: verdict, cpu: verdict, pids: verdict };
  };
  if (facts.platform !== "linux") return refuse(`cgroups are Linux's; this is ${facts.platform}`);
  if (facts.missingSetpriv !== undefined) {
    return refuse(
      `as root, a command joins its cgroups and then switches to the sandbox user with ${facts.missingSetpriv} (util-linux), which is missing`,
    );
  }
  const mounts = facts.mountinfo
    .split("\n")
    .map(parseMount)
    .filter((mount) => mount !== undefined);
  const memberships = facts.membership
    .split("\n")
    .map((line) => /^(\d+):([^:]*):(.*)$/.exec(line))
    .filter((match) => match !== null)
    .map(([, hierarchy, controllers, path]) => ({ hierarchy, controllers: (controllers ?? "").split(","), path }));
  const unifiedPath = memberships.find((entry) => entry.hierarchy === "0")?.path;
  const unifiedMount = mounts.find((mount) => mount.type === "cgroup2");
  const unified = unifiedMount && unifiedPath !== undefined ? ownDirectory(unifiedMount, unifiedPath ?? "") : undefined;
  const words = (path: string) => (facts.read(path) ?? "").split(/\s+/).filter(Boolean);
  const verdict = (controller: LimitController): LimitSupport => {
    if (unified && facts.writable(unified) && words(join(unified, "cgroup.controllers")).includes(controller)) {
      const enabled = words(join(unified, "cgroup.subtree_control")).includes(controller);
      if (enabled || !facts.exists(join(unified, "cgroup.type"))) return { ok: true };
    }
    const legacy = memberships.find((entry) => entry.hierarchy !== "0" && entry.controllers.includes(controller));
    const mount = mounts.find(
      (candidate) => candidate.type === "cgroup" && candidate.superOptions.includes(controller),
    );
    const directory = legacy && mount ? ownDirectory(mount, legacy.path ?? "") : undefined;
    if (directory && facts.writable(directory)) return { ok: true };
    return {
      ok: false,
      reason:
        `no writable cgroup hierarchy with the ${controller} controller is available to this process ` +
        "(run as root on cgroup v1, or with a delegated cgroup v2 subtree that has the controller enabled for its children)",
    };
  };
  return { memory: verdict("memory"), cpu: verdict("cpu"), pids: verdict("pids") };
}

/**
 * {@link judgeLimits} for this process, from two small `/proc` files and a
 * few reads and `access` calls in its own cgroups: a runtime declares its
 * limits at construction, before anything async can run. Decided once per
 * process for each `setpriv` requirement.
 */
export function limitsSupport(missingSetpriv: string | undefined): LimitsSupport {
  const cached = decided.get(missingSetpriv);
  if (cached) return cached;
  let support: LimitsSupport;
  try {
    const linux = process.platform === "linux";
    support = judgeLimits({
      platform: process.platform,
      mountinfo: linux ? readFileSync("/proc/self/mountinfo", "utf8") : "",
      membership: linux ? readFileSync("/proc/self/cgroup", "utf8") : "",
      writable: (directory) => canAccess(directory, constants.W_OK),
      read: (path) => {
        try {
          return readFileSync(path, "utf8");
        } catch {
          return undefined;
        }
      },
      exists: (path) => canAccess(path, constants.F_OK),
      ...(missingSetpriv === undefined ? {} : { missingSetpriv }),
    });
  } catch (error) {
    const verdict = {
      ok: false,
      reason: `could not read this process's cgroups: ${(error as Error).message}`,
    } as const;
    support = { memory: verdict, cpu: verdict, pids: verdict };
  }
  decided.set(missingSetpriv, support);
  return support;
}

const decided = new Map<string | undefined, LimitsSupport>();

function canAccess(path: string, mode: number): boolean {
  try {
    accessSync(path, mode);
    return true;
  } catch {
    return false;
  }
}
