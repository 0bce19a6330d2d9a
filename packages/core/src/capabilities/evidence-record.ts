import { invalidRequest } from "../errors/factories.js";
import { DECLARED_CAPABILITIES, type DeclaredCapability, MODE_NAMES, type ModeName } from "./capability-names.js";
import { type CapabilityModes, MODE_VALUES } from "./modes.js";

/** The format tag of an evidence record. */
export const EVIDENCE_FORMAT = "sandport-evidence-v1";

/** What one live run observed: declared capabilities seen to work, and modes seen in action. */
export type Observations = Partial<Record<DeclaredCapability, true>> & {
  readonly [K in ModeName]?: Exclude<CapabilityModes[K], "unsupported" | "not-exposed" | "unknown">;
};

/**
 * A record written by a live canary run against a real provider. It can only
 * turn `unknown` cells into observed values; see `resolveCapabilities`.
 */
export interface EvidenceRecord {
  /** Always {@link EVIDENCE_FORMAT}. */
  readonly format: typeof EVIDENCE_FORMAT;
  /** Provider the run exercised; must equal the runtime's `provider`. */
  readonly provider: string;
  /** When the run finished, ISO-8601. */
  readonly recordedAt: string;
  /** Identifier of the run (a CI run URL or id), for tracing the claim back. */
  readonly runId: string;
  /** What was observed. */
  readonly observed: Observations;
}

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/**
 * Parses and validates an evidence record (already JSON-decoded).
 * Rejects anything malformed with `INVALID_REQUEST`: unknown format, unknown
 * or structural capability names, values other than `true` or a legal mode.
 */
export function parseEvidenceRecord(input: unknown): EvidenceRecord {
  const fail = (why: string) => invalidRequest(`malformed evidence record: ${why}`, { reason: why });
  if (typeof input !== "object" || input === null || Array.isArray(input)) throw fail("not an object");
  const record = input as Record<string, unknown>;
  if (record.format !== EVIDENCE_FORMAT) throw fail(`format must be "${EVIDENCE_FORMAT}"`);
  for (const key of ["provider", "runId"] as const) {
    if (typeof record[key] !== "string" || record[key] === "") throw fail(`${key} must be a non-empty string`);
  }
  if (typeof record.recordedAt !== "string" || !ISO_INSTANT.test(record.recordedAt)) {
    throw fail("recordedAt must be an ISO-8601 UTC instant");
  }
  const observed = record.observed;
  if (typeof observed !== "object" || observed === null || Array.isArray(observed)) {
    throw fail("observed must be an object");
  }
  const clean: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(observed)) {
    if ((DECLARED_CAPABILITIES as readonly string[]).includes(name)) {
      if (value !== true) throw fail(`observed.${name} must be true (absence is never observed)`);
    } else if ((MODE_NAMES as readonly string[]).includes(name)) {
      if (!MODE_VALUES[name as ModeName].includes(value as string)) throw fail(`observed.${name} has illegal value`);
    } else {
      throw fail(`observed.${name} is not a declared capability or mode`);
    }
    clean[name] = value;
  }
  return {
    format: EVIDENCE_FORMAT,
    provider: record.provider as string,
    recordedAt: record.recordedAt,
    runId: record.runId as string,
    observed: clean as Observations,
  };
}
