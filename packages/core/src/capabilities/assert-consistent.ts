import { SandportError } from "../errors/sandport-error.js";
import { type SandboxRuntime, SPECIFICATION_VERSION } from "../port/sandbox-runtime.js";
import { isAbsence } from "./absence.js";
import { DECLARED_CAPABILITIES, MODE_NAMES, type StructuralCapability } from "./capability-names.js";
import { MODE_VALUES } from "./modes.js";
import { hasMethod, METHOD_GROUPS, STRUCTURAL_REQUIREMENTS } from "./structural-methods.js";

/**
 * Lists every way a runtime's declaration contradicts its methods (or is
 * malformed). Empty when consistent.
 */
export function findCapabilityContradictions(runtime: SandboxRuntime): string[] {
  const problems: string[] = [];
  if (runtime.specificationVersion !== SPECIFICATION_VERSION) {
    problems.push(`specificationVersion must be "${SPECIFICATION_VERSION}"`);
  }
  const declared = runtime.capabilities;
  for (const [group, methods] of Object.entries(METHOD_GROUPS)) {
    const present = methods.filter((method) => hasMethod(runtime, method));
    if (present.length > 0 && present.length < methods.length) {
      const missing = methods.filter((method) => !present.includes(method));
      problems.push(`${group} is half-implemented: has ${present.join(", ")} but not ${missing.join(", ")}`);
    }
  }
  for (const name of DECLARED_CAPABILITIES) {
    const value = declared[name];
    if (value !== true && !isAbsence(value)) problems.push(`${name} must be true or an absence, got ${String(value)}`);
  }
  for (const name of MODE_NAMES) {
    const value = declared.modes?.[name];
    if (!isAbsence(value) && !MODE_VALUES[name].includes(value as string)) {
      problems.push(`modes.${name} has illegal value ${String(value)}`);
    }
  }
  const hasLifecycle = hasMethod(runtime, "stop") && hasMethod(runtime, "start");
  if (declared.lifecycle === true && !hasLifecycle)
    problems.push("lifecycle is declared true but stop/start are missing");
  if (hasLifecycle && (declared.lifecycle === "unsupported" || declared.lifecycle === "not-exposed")) {
    problems.push(`stop/start are present but lifecycle is declared ${declared.lifecycle}`);
  }
  const stopKeeps = declared.modes?.stopKeeps;
  if (!hasLifecycle && stopKeeps !== undefined && !isAbsence(stopKeeps)) {
    problems.push(`modes.stopKeeps is declared ${stopKeeps} but stop/start are missing`);
  }
  for (const [name, reason] of Object.entries(declared.absent ?? {})) {
    const methods = STRUCTURAL_REQUIREMENTS[name as StructuralCapability];
    if (!methods) problems.push(`absent.${name} is not a structural capability`);
    else if (!isAbsence(reason)) problems.push(`absent.${name} must be an absence value`);
    else if (methods.every((method) => hasMethod(runtime, method))) {
      problems.push(`absent.${name} is declared ${reason} but its methods are present`);
    }
  }
  return problems;
}

/**
 * Throws `CAPABILITY_MISMATCH` when the runtime's methods contradict its
 * declaration. Call it at the end of an adapter's constructor.
 */
export function assertCapabilitiesConsistent(runtime: SandboxRuntime): void {
  const problems = findCapabilityContradictions(runtime);
  if (problems.length === 0) return;
  throw new SandportError({
    code: "CAPABILITY_MISMATCH",
    provider: runtime.provider,
    message: `${runtime.provider} declares capabilities its methods contradict: ${problems.join("; ")}`,
    details: { problems },
  });
}
