import type { SandboxRuntime } from "../port/sandbox-runtime.js";
import type { StructuralCapability } from "./capability-names.js";

/** Optional method names of the port. */
export type OptionalMethod = Exclude<
  {
    [K in keyof SandboxRuntime]-?: undefined extends SandboxRuntime[K] ? K : never;
  }[keyof SandboxRuntime],
  undefined
>;

/**
 * Methods that must exist together: having some but not all of a group is a
 * half-implemented capability, which `assertCapabilitiesConsistent` refuses.
 */
export const METHOD_GROUPS: Readonly<Record<string, readonly OptionalMethod[]>> = {
  asyncExec: ["startCommand", "commandStatus", "commandLogs"],
  fileOps: ["listDir", "stat", "mkdir", "remove"],
  lifecycle: ["stop", "start"],
  snapshots: ["snapshot", "listSnapshots", "deleteSnapshot"],
};

/** The methods each structural capability requires. */
export const STRUCTURAL_REQUIREMENTS: Readonly<Record<StructuralCapability, readonly OptionalMethod[]>> = {
  reattach: ["getById"],
  labelSearch: ["findByLabels"],
  asyncExec: ["startCommand", "commandStatus", "commandLogs", "getById"],
  streaming: ["execStream"],
  detachedLaunch: ["launchDetached"],
  fileOps: ["listDir", "stat", "mkdir", "remove"],
  interactive: ["spawn"],
  ports: ["portEndpoint"],
  pty: ["openTerminal"],
  snapshots: ["snapshot", "listSnapshots", "deleteSnapshot"],
  fork: ["fork"],
  fileStreaming: ["readFileStream"],
};

/** True when `runtime` has a callable member named `method`. */
export function hasMethod(runtime: SandboxRuntime, method: OptionalMethod): boolean {
  return typeof (runtime as unknown as Record<string, unknown>)[method] === "function";
}
