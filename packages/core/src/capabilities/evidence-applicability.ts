import type { EvidenceRecord } from "./evidence-record.js";

/**
 * Why an evidence record was set aside:
 *
 * - `EVIDENCE_OTHER_PROVIDER`: it was recorded against another provider.
 * - `EVIDENCE_OTHER_VERSION`: it was recorded against another version of the adapter.
 * - `EVIDENCE_VERSION_UNKNOWN`: the caller did not say which adapter version the
 *   runtime is, so no record can be matched to it.
 */
export type EvidenceWarningCode = "EVIDENCE_OTHER_PROVIDER" | "EVIDENCE_OTHER_VERSION" | "EVIDENCE_VERSION_UNKNOWN";

/** A record `resolveCapabilities` ignored, and why. */
export interface EvidenceWarning {
  /** Stable code; see {@link EvidenceWarningCode}. */
  readonly code: EvidenceWarningCode;
  /** One line for a person: which record, and why it does not apply. */
  readonly message: string;
  /** The ignored record. */
  readonly record: EvidenceRecord;
}

/** How `resolveCapabilities` matches evidence to the runtime. */
export interface EvidenceOptions {
  /**
   * Version of the adapter package the runtime comes from (its package.json
   * `version`, e.g. `"0.1.0"`). Evidence applies only when recorded against
   * this exact version. Default: unknown, so every record is ignored (with a
   * warning): evidence about another version of an adapter proves nothing about this one.
   */
  readonly adapterVersion?: string;
  /**
   * Receives each ignored record. Default: `process.emitWarning` with type
   * `SandportEvidenceWarning` and the warning's code (printed on stderr by Node).
   */
  readonly onWarning?: (warning: EvidenceWarning) => void;
}

/**
 * The records that may speak for this runtime: same provider, same adapter
 * version. Every other record is reported through `onWarning` and left out;
 * none is an error, since stale evidence is expected after an upgrade.
 */
export function applicableEvidence(
  provider: string,
  records: readonly EvidenceRecord[],
  options: EvidenceOptions = {},
): EvidenceRecord[] {
  const warn = options.onWarning ?? emitProcessWarning;
  return records.filter((record) => {
    const recorded = `evidence ${record.runId} (${record.adapter.package}@${record.adapter.version}, ${record.recordedAt})`;
    if (record.provider !== provider) {
      warn({
        code: "EVIDENCE_OTHER_PROVIDER",
        message: `${recorded} is for provider "${record.provider}", not "${provider}": ignored`,
        record,
      });
      return false;
    }
    if (options.adapterVersion === undefined) {
      warn({
        code: "EVIDENCE_VERSION_UNKNOWN",
        message: `${recorded} is ignored: the adapter version of this "${provider}" runtime was not given`,
        record,
      });
      return false;
    }
    if (record.adapter.version !== options.adapterVersion) {
      warn({
        code: "EVIDENCE_OTHER_VERSION",
        message: `${recorded} is for adapter version ${record.adapter.version}, not ${options.adapterVersion}: ignored`,
        record,
      });
      return false;
    }
    return true;
  });
}

function emitProcessWarning(warning: EvidenceWarning): void {
  if (typeof process !== "undefined" && typeof process.emitWarning === "function") {
    process.emitWarning(warning.message, { type: "SandportEvidenceWarning", code: warning.code });
  }
}
