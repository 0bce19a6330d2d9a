import { invalidRequest } from "../errors/factories.js";
import type { SandboxRuntime } from "../port/sandbox-runtime.js";
import { type Availability, isPendingEvidence } from "./absence.js";
import { type CapabilityName, DECLARED_CAPABILITIES, MODE_NAMES, STRUCTURAL_CAPABILITIES } from "./capability-names.js";
import type { EvidenceRecord } from "./evidence-record.js";
import type { CapabilitySource, ResolvedCapabilities } from "./resolved-capabilities.js";
import { hasMethod, STRUCTURAL_REQUIREMENTS } from "./structural-methods.js";

/**
 * Turns a runtime's methods, its declaration and (optionally) live evidence into
 * one answer per capability.
 *
 * - Structural capabilities come from method presence; a missing one takes the
 *   declared reason (`absent`), else `not-exposed`.
 * - Declared capabilities and modes come from `runtime.capabilities`.
 * - Evidence may replace an `unknown` declared cell with what a live run observed,
 *   and nothing else: a declared `unsupported` stays `unsupported` whatever a record says.
 *
 * Evidence for a different provider is refused with `INVALID_REQUEST`.
 */
export function resolveCapabilities(
  runtime: SandboxRuntime,
  evidence: EvidenceRecord | readonly EvidenceRecord[] = [],
): ResolvedCapabilities {
  const records = Array.isArray(evidence) ? evidence : [evidence as EvidenceRecord];
  for (const record of records) {
    if (record.provider !== runtime.provider) {
      throw invalidRequest(`evidence for "${record.provider}" cannot describe runtime "${runtime.provider}"`, {
        evidenceProvider: record.provider,
      });
    }
  }
  const declared = runtime.capabilities;
  const values: Record<string, unknown> = { provider: runtime.provider };
  const sources: Partial<Record<CapabilityName, CapabilitySource>> = {};

  for (const name of STRUCTURAL_CAPABILITIES) {
    const present = STRUCTURAL_REQUIREMENTS[name].every((method) => hasMethod(runtime, method));
    values[name] = present ? true : (declared.absent?.[name] ?? "not-exposed");
    sources[name] = "structural";
  }

  const observe = (name: CapabilityName, declaredValue: unknown): void => {
    values[name] = declaredValue;
    sources[name] = "declared";
    if (!isPendingEvidence(declaredValue)) return;
    for (const record of records) {
      const seen = (record.observed as Record<string, unknown>)[name];
      if (seen !== undefined) {
        values[name] = seen;
        sources[name] = "observed";
      }
    }
  };
  for (const name of DECLARED_CAPABILITIES) observe(name, declared[name] as Availability);
  for (const name of MODE_NAMES) observe(name, declared.modes[name]);

  values.sources = sources;
  return values as unknown as ResolvedCapabilities;
}
