/**
 * `LaunchSpec.resources` as Modal's hard limits, the sizes Modal cannot take
 * refused, and what a launch's handle reports it was granted.
 *
 * @module
 */

import { type GrantedResources, unsupported, type ValidatedLaunchSpec } from "@sandport/core";
import { PROVIDER } from "./handle.js";
import type { ModalCreateParams } from "./internal/sdk-types.js";

/**
 * The port's limits as Modal's hard limits (`cpuLimit`, `memoryLimitMiB`):
 * `cpus` and `memoryMiB` are ceilings, and Modal's `cpu` and `memoryMiB` are
 * reservations, which bound nothing. The SDK sends a limit only beside its
 * reservation (not above it), so each is reserved as much as it may use.
 * Modal counts memory in whole MiB and CPU in thousandths of a core, and the
 * SDK truncates `1000 × cpu`: a value it would cut is refused
 * ({@link checkModalSizes}), and the cores are sent half a thousandth above
 * the count, so that the truncation of a product like `1000 × 1.005`
 * (1004.999…) still gives the count asked.
 */
export function limitsOf(resources: ValidatedLaunchSpec["resources"]): Partial<ModalCreateParams> {
  const milliCpus = resources?.cpus === undefined ? undefined : Math.round(resources.cpus * 1000);
  const cores = milliCpus === undefined ? undefined : (milliCpus + 0.5) / 1000;
  const memory = resources?.memoryMiB;
  return {
    ...(cores === undefined ? {} : { cpu: cores, cpuLimit: cores }),
    ...(memory === undefined ? {} : { memoryMiB: memory, memoryLimitMiB: memory }),
  };
}

/**
 * Refuses (`UNSUPPORTED`, before any request) a `cpus` that is not a whole
 * number of thousandths of a core, or a `memoryMiB` that is not whole: Modal
 * could only be sent a rounded value, and a ceiling is never loosened (nor
 * tightened) unseen.
 */
export function checkModalSizes(resources: ValidatedLaunchSpec["resources"]): void {
  const cpus = resources?.cpus;
  if (cpus !== undefined && Math.abs(cpus * 1000 - Math.round(cpus * 1000)) > 1e-6) {
    throw unsupported(PROVIDER, "resources.cpus finer than a thousandth of a core", "Modal counts CPU in millicores");
  }
  if (cpus !== undefined && Math.round(cpus * 1000) < 1) {
    throw unsupported(PROVIDER, "resources.cpus below a thousandth of a core", "Modal counts CPU in millicores");
  }
  const memory = resources?.memoryMiB;
  if (memory !== undefined && !Number.isInteger(memory)) {
    throw unsupported(PROVIDER, "resources.memoryMiB that is not whole", "Modal sizes memory in whole MiB");
  }
}

/**
 * What Modal granted a sandbox it created, in the port's units: the hard
 * limits the create carried (`cpuLimit` as the thousandths of a core the SDK
 * sends, `memoryLimitMiB`), which Modal applies as sent or refuses the create;
 * its answer (the sandbox id, its task and router access) repeats no size.
 * `undefined` when the launch set no limit: Modal's defaults are reservations
 * (0.125 cores, 128 MiB), not ceilings, and nothing says how far the sandbox
 * may go past them.
 */
export function grantedLimits(
  plan: Pick<ModalCreateParams, "cpuLimit" | "memoryLimitMiB">,
): GrantedResources | undefined {
  const granted: GrantedResources = {
    ...(plan.cpuLimit === undefined ? {} : { cpus: Math.trunc(plan.cpuLimit * 1000) / 1000 }),
    ...(plan.memoryLimitMiB === undefined ? {} : { memoryMiB: plan.memoryLimitMiB }),
  };
  return Object.keys(granted).length === 0 ? undefined : Object.freeze(granted);
}
