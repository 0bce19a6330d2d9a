import { invalidRequest } from "../errors/factories.js";
import type { SandportError } from "../errors/sandport-error.js";
import { DECLARED_CAPABILITIES, MODE_NAMES, type ModeName } from "./capability-names.js";
import { endpointKey } from "./evidence-endpoint.js";
import {
  type ConformanceSummary,
  EVIDENCE_FORMAT,
  EVIDENCE_FORMAT_V2,
  type EvidenceEndpoint,
  type EvidenceRecord,
  type Observations,
  type ProbeParameters,
  type ProbeRecord,
} from "./evidence-record.js";
import { MODE_VALUES } from "./modes.js";

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

type Fields = Record<string, unknown>;

/**
 * Parses and validates an evidence record (already JSON-decoded). Rejects
 * anything malformed with `INVALID_REQUEST`: another format (a
 * `sandport-evidence-v1` record names no adapter version, so it can never
 * apply), a v3 record without its endpoint, missing versions, unknown or structural capability names, values
 * other than `true` or a legal mode, and an `observed` map that does not match
 * the passed probes one for one (a failed probe observes nothing). A
 * `sandport-evidence-v2` record is read as it was written: it has no
 * `endpoint`, since it never said where it was gathered.
 */
export function parseEvidenceRecord(input: unknown): EvidenceRecord {
  const record = objectOf(input, "the record");
  if (record.format !== EVIDENCE_FORMAT && record.format !== EVIDENCE_FORMAT_V2) {
    throw malformed(`format must be "${EVIDENCE_FORMAT}" (got ${JSON.stringify(record.format)}); re-run the canary`);
  }
  const endpoint = record.format === EVIDENCE_FORMAT ? endpointOf(record.endpoint) : undefined;
  const provider = text(record.provider, "provider");
  const runId = text(record.runId, "runId");
  if (typeof record.recordedAt !== "string" || !ISO_INSTANT.test(record.recordedAt)) {
    throw malformed("recordedAt must be an ISO-8601 UTC instant");
  }
  const adapter = objectOf(record.adapter, "adapter");
  const sdks = objectOf(record.sdks, "sdks");
  for (const [name, version] of Object.entries(sdks)) text(version, `sdks.${name}`);
  const probes = probesOf(record.probes);
  const observed = observationsOf(record.observed);
  checkObservedMatchesProbes(observed, probes);
  return {
    format: record.format,
    provider,
    ...(endpoint === undefined ? {} : { endpoint }),
    adapter: { package: text(adapter.package, "adapter.package"), version: text(adapter.version, "adapter.version") },
    sdks: { ...(sdks as Record<string, string>) },
    recordedAt: record.recordedAt,
    runId,
    conformance: conformanceOf(record.conformance),
    probes,
    observed,
  };
}

function malformed(why: string): SandportError {
  return invalidRequest(`malformed evidence record: ${why}`, { reason: why });
}

function objectOf(value: unknown, field: string): Fields {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw malformed(`${field} must be an object`);
  return value as Fields;
}

function text(value: unknown, field: string): string {
  if (typeof value !== "string" || value === "") throw malformed(`${field} must be a non-empty string`);
  return value;
}

function endpointOf(value: unknown): EvidenceEndpoint {
  const endpoint = objectOf(value, "endpoint");
  if (endpoint.kind === "default") return { kind: "default" };
  if (endpoint.kind !== "custom") throw malformed('endpoint.kind must be "default" or "custom"');
  const url = text(endpoint.url, "endpoint.url");
  if (!URL.canParse(url)) throw malformed("endpoint.url must be a URL");
  return { kind: "custom", url: endpointKey(url) };
}

function parametersOf(value: unknown, field: string): ProbeParameters | undefined {
  if (value === undefined) return undefined;
  const parameters = objectOf(value, field);
  for (const [name, item] of Object.entries(parameters)) {
    if (!["string", "number", "boolean"].includes(typeof item)) {
      throw malformed(`${field}.${name} must be a string, a number or a boolean`);
    }
  }
  return { ...(parameters as Record<string, string | number | boolean>) };
}

function count(value: unknown, field: string): number {
  if (!Number.isInteger(value) || (value as number) < 0) throw malformed(`${field} must be a non-negative integer`);
  return value as number;
}

function conformanceOf(value: unknown): ConformanceSummary {
  const summary = objectOf(value, "conformance");
  const failures = summary.failures;
  if (!Array.isArray(failures) || failures.some((title) => typeof title !== "string")) {
    throw malformed("conformance.failures must be an array of strings");
  }
  const failed = count(summary.failed, "conformance.failed");
  if (failed === 0 && failures.length > 0) throw malformed("conformance.failures lists failures but failed is 0");
  return {
    passed: count(summary.passed, "conformance.passed"),
    failed,
    skipped: count(summary.skipped, "conformance.skipped"),
    failures: [...failures] as string[],
  };
}

/** Whether `value` is what a passing probe of `name` may establish. */
function legalObservation(name: string, value: unknown): boolean {
  if ((DECLARED_CAPABILITIES as readonly string[]).includes(name)) return value === true;
  return MODE_VALUES[name as ModeName].includes(value as string);
}

function capabilityName(name: unknown, field: string): string {
  const known = [...DECLARED_CAPABILITIES, ...MODE_NAMES] as readonly unknown[];
  if (!known.includes(name)) throw malformed(`${field} ${JSON.stringify(name)} is not a declared capability or mode`);
  return name as string;
}

function probesOf(value: unknown): ProbeRecord[] {
  if (!Array.isArray(value)) throw malformed("probes must be an array");
  const seen = new Set<string>();
  return value.map((item, index) => {
    const probe = objectOf(item, `probes[${index}]`);
    const capability = capabilityName(probe.capability, `probes[${index}].capability`);
    if (seen.has(capability)) throw malformed(`probes name ${capability} twice`);
    seen.add(capability);
    const durationMs = probe.durationMs;
    if (typeof durationMs !== "number" || !Number.isFinite(durationMs) || durationMs < 0) {
      throw malformed(`probes[${index}].durationMs must be a non-negative number`);
    }
    const parameters = parametersOf(probe.parameters, `probes[${index}].parameters`);
    const used = parameters === undefined ? {} : { parameters };
    if (probe.outcome === "passed") {
      if (!legalObservation(capability, probe.value)) throw malformed(`probes[${index}].value is not legal`);
      return { capability, outcome: "passed", value: probe.value, durationMs, ...used } as ProbeRecord;
    }
    if (probe.outcome === "failed") {
      const reason = text(probe.reason, `probes[${index}].reason`);
      return { capability, outcome: "failed", reason, durationMs, ...used } as ProbeRecord;
    }
    throw malformed(`probes[${index}].outcome must be "passed" or "failed"`);
  });
}

function observationsOf(value: unknown): Observations {
  const observed = objectOf(value, "observed");
  const clean: Record<string, unknown> = {};
  for (const [name, seen] of Object.entries(observed)) {
    capabilityName(name, "observed");
    if (!legalObservation(name, seen)) {
      throw malformed(`observed.${name} has an illegal value (absence is never observed)`);
    }
    clean[name] = seen;
  }
  return clean as Observations;
}

function checkObservedMatchesProbes(observed: Observations, probes: readonly ProbeRecord[]): void {
  const fromProbes = new Map(
    probes.flatMap((probe) => (probe.outcome === "passed" ? [[probe.capability, probe.value] as const] : [])),
  );
  for (const [name, value] of Object.entries(observed)) {
    if (fromProbes.get(name as ProbeRecord["capability"]) !== value) {
      throw malformed(`observed.${name} is not what a passed probe established`);
    }
  }
  for (const name of fromProbes.keys()) {
    if (!(name in observed)) throw malformed(`the passed probe of ${name} is missing from observed`);
  }
}
