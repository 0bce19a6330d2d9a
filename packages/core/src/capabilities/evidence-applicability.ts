import { endpointKey } from "./evidence-endpoint.js";
import type { EvidenceRecord } from "./evidence-record.js";

/**
 * Why an evidence record was set aside:
 *
 * - `EVIDENCE_OTHER_PROVIDER`: it was recorded against another provider.
 * - `EVIDENCE_OTHER_VERSION`: it was recorded against another version of the adapter.
 * - `EVIDENCE_VERSION_UNKNOWN`: the caller did not say which adapter version the
 *   runtime is, so no record can be matched to it.
 * - `EVIDENCE_CUSTOM_ENDPOINT`: it was gathered at a custom endpoint (an emulator,
 *   say) that the caller did not name in `liveEndpoints`.
 * - `EVIDENCE_ENDPOINT_UNRECORDED`: it is a `sandport-evidence-v2` record, which
 *   does not say where it was gathered.
 */
export type EvidenceWarningCode =
  | "EVIDENCE_OTHER_PROVIDER"
  | "EVIDENCE_OTHER_VERSION"
  | "EVIDENCE_VERSION_UNKNOWN"
  | "EVIDENCE_CUSTOM_ENDPOINT"
  | "EVIDENCE_ENDPOINT_UNRECORDED";

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
   * Custom endpoints the caller says are the provider's real service (a
   * self-hosted or regional deployment), compared without a trailing slash,
   * user name, query or fragment. Evidence gathered at any other custom
   * endpoint (an emulator) is ignored with a warning, as is a record that does
   * not say where it was gathered. Default: none; only evidence from the
   * provider's default endpoint counts.
   */
  readonly liveEndpoints?: readonly string[];
  /**
   * Receives each ignored record. Default: `process.emitWarning` with type
   * `SandportEvidenceWarning` and the warning's code (printed on stderr by Node).
   */
  readonly onWarning?: (warning: EvidenceWarning) => void;
}

/**
 * The records that may speak for this runtime: same provider, same adapter
 * version, gathered at the default endpoint or at one of `liveEndpoints`.
 * Every other record is reported through `onWarning` and left out; none is an
 * error, since stale evidence is expected after an upgrade.
 */
export function applicableEvidence(
  provider: string,
  records: readonly EvidenceRecord[],
  options: EvidenceOptions = {},
): EvidenceRecord[] {
  const warn = options.onWarning ?? emitProcessWarning;
  const live = new Set((options.liveEndpoints ?? []).map(endpointKey));
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
    if (record.endpoint === undefined) {
      warn({
        code: "EVIDENCE_ENDPOINT_UNRECORDED",
        message: `${recorded} does not say where it was gathered (${record.format}; it may come from an emulator): ignored; re-run the canary`,
        record,
      });
      return false;
    }
    if (record.endpoint.kind === "custom" && !live.has(record.endpoint.url)) {
      warn({
        code: "EVIDENCE_CUSTOM_ENDPOINT",
        message: `${recorded} was gathered at ${record.endpoint.url}, not at the provider's default endpoint: ignored unless that endpoint is named as the real service`,
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
