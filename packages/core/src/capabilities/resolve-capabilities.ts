import type { SandboxRuntime } from "../port/sandbox-runtime.js";
import { type Availability, isPendingEvidence } from "./absence.js";
import { type CapabilityName, DECLARED_CAPABILITIES, MODE_NAMES, STRUCTURAL_CAPABILITIES } from "./capability-names.js";
import { applicableEvidence, type EvidenceOptions } from "./evidence-applicability.js";
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
 * - Evidence may replace an `unknown` declared cell with what a live run's probe
 *   established, and nothing else: a declared `unsupported` stays `unsupported`
 *   whatever a record says. Only records of the same provider and adapter version
 *   (`options.adapterVersion`), gathered at the provider's default endpoint or
 *   at one the caller names in `options.liveEndpoints`, count; any other (an
 *   emulator's, or an old record that does not say) is ignored with a warning
 *   (`options.onWarning`). Among those, a cell is promoted when at least one
 *   record's probe passed and none failed or saw another value.
 */
export function resolveCapabilities(
  runtime: SandboxRuntime,
  evidence: EvidenceRecord | readonly EvidenceRecord[] = [],
  options: EvidenceOptions = {},
): ResolvedCapabilities {
  const given = Array.isArray(evidence) ? evidence : [evidence as EvidenceRecord];
  const records = applicableEvidence(runtime.provider, given, options);
  const declared = runtime.capabilities;
  const values: Record<string, unknown> = { provider: runtime.provider };
  const sources: Partial<Record<CapabilityName, CapabilitySource>> = {};
  const observedAt: Partial<Record<CapabilityName, string[]>> = {};

  for (const name of STRUCTURAL_CAPABILITIES) {
    const present = STRUCTURAL_REQUIREMENTS[name].every((method) => hasMethod(runtime, method));
    values[name] = present ? true : (declared.absent?.[name] ?? "not-exposed");
    sources[name] = "structural";
  }

  const observe = (name: CapabilityName, declaredValue: unknown): void => {
    values[name] = declaredValue;
    sources[name] = "declared";
    if (!isPendingEvidence(declaredValue)) return;
    const seen = observation(records, name);
    if (seen !== undefined) {
      values[name] = seen;
      sources[name] = "observed";
      observedAt[name] = endpointsOf(records, name);
    }
  };
  for (const name of DECLARED_CAPABILITIES) observe(name, declared[name] as Availability);
  for (const name of MODE_NAMES) observe(name, declared.modes[name]);

  values.sources = sources;
  values.observedAt = observedAt;
  return values as unknown as ResolvedCapabilities;
}

/** What the records' probes agree `name` is, or undefined when none passed, one failed, or they disagree. */
function observation(records: readonly EvidenceRecord[], name: CapabilityName): unknown {
  const probes = records.flatMap((record) => record.probes.filter((probe) => probe.capability === name));
  if (probes.length === 0 || probes.some((probe) => probe.outcome === "failed")) return undefined;
  const values = new Set(probes.map((probe) => (probe.outcome === "passed" ? probe.value : undefined)));
  return values.size === 1 ? [...values][0] : undefined;
}

/** Where the records with a probe of `name` were gathered, each once: `"default"` or the custom URL. */
function endpointsOf(records: readonly EvidenceRecord[], name: CapabilityName): string[] {
  const where = records
    .filter((record) => record.probes.some((probe) => probe.capability === name))
    .map((record) => (record.endpoint?.kind === "custom" ? record.endpoint.url : "default"));
  return [...new Set(where)];
}
