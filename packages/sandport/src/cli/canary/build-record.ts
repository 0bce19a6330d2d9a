import {
  type ConformanceSummary,
  EVIDENCE_FORMAT,
  type EvidenceEndpoint,
  type EvidenceRecord,
  type Observations,
  type ProbeRecord,
  parseEvidenceRecord,
} from "@sandport/core";
import type { ProviderDescriptor } from "../providers/descriptor.js";
import { sdkRequirements } from "../providers/versions.js";

/**
 * The evidence record of a canary run: provider, where it reached the provider
 * (`endpoint`), adapter and SDK versions, the time, the conformance summary and
 * every probe with the parameters it used, with `observed` holding
 * exactly what the passed probes established. Validated before it is returned,
 * so a record the CLI writes always parses.
 */
export function buildRecord(
  descriptor: ProviderDescriptor,
  runId: string,
  endpoint: EvidenceEndpoint,
  conformance: ConformanceSummary,
  probes: readonly ProbeRecord[],
): EvidenceRecord {
  const observed: Record<string, unknown> = {};
  for (const probe of probes) if (probe.outcome === "passed") observed[probe.capability] = probe.value;
  const sdks: Record<string, string> = {};
  // The SDK the adapter loads: of one published under several names, the installation it picks.
  for (const { loaded } of sdkRequirements(descriptor)) if (loaded?.version) sdks[loaded.name] = loaded.version;
  return parseEvidenceRecord({
    format: EVIDENCE_FORMAT,
    provider: descriptor.provider,
    endpoint,
    adapter: { package: descriptor.packageName, version: descriptor.version },
    sdks,
    recordedAt: new Date().toISOString(),
    runId,
    conformance,
    probes,
    observed: observed as Observations,
  });
}
