/**
 * What a runtime decides about this host once, at construction: whether it
 * can stop sandboxes, which limits it can place, and so what it declares.
 *
 * @module
 */

import { accessSync, constants } from "node:fs";
import type { DeclaredCapabilities } from "@sandport/core";
import { localCapabilities } from "./capabilities.js";
import { type FreezerSupport, freezerSupport } from "./cgroups/freezer.js";
import { limitsSupport } from "./cgroups/limit-support.js";
import { SETPRIV_PATH } from "./commands/command-plan.js";
import { diskSupport } from "./disk/disk-support.js";
import type { ResolvedLocalOptions } from "./options.js";
import type { LimitVerdicts } from "./sandboxes/sandbox-setup.js";

/** A runtime's judgement of this host (see {@link judgeHost}). */
export interface HostVerdicts {
  /** Whether sandboxes can be frozen (`stop` and `start`), and why not. */
  readonly lifecycle: FreezerSupport;
  /** Which resource limits can be placed. */
  readonly limits: LimitVerdicts;
  /** What the runtime declares, from the two above. */
  readonly capabilities: DeclaredCapabilities;
}

/**
 * Reads `/proc/self/cgroup`, `/proc/self/mountinfo`, this process's own
 * cgroups (see `freezerSupport` and `limitsSupport`), `/proc/self/status`,
 * `/proc/self/uid_map`, `/dev/loop-control` and the mount tools (see
 * `diskSupport`); the results are kept per process by those probes.
 */
export function judgeHost(options: ResolvedLocalOptions): HostVerdicts {
  const lifecycle: FreezerSupport =
    options.cgroups === "auto" ? freezerSupport() : { ok: false, reason: "cgroups are disabled in the options" };
  // Limits placed as the sandbox's uid need setpriv, checked here once.
  const setprivMissing = (options.sandboxUser || options.sandboxUids) && !isExecutable(SETPRIV_PATH);
  const limits = { cgroups: limitsSupport(setprivMissing ? SETPRIV_PATH : undefined), disk: diskSupport() };
  const capabilities = localCapabilities(options.isolation, {
    cgroups: options.cgroups,
    freezable: lifecycle.ok,
    enforceable: {
      memory: limits.cgroups.memory.ok,
      cpu: limits.cgroups.cpu.ok,
      processes: limits.cgroups.pids.ok,
    },
    diskBound: limits.disk.ok,
  });
  return { lifecycle, limits, capabilities };
}

/** Whether `path` is executable by this process. */
function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
