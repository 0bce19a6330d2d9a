import type { DeclaredCapability, ModeName } from "./capability-names.js";
import type { CapabilityModes } from "./modes.js";

/**
 * The format tag of the evidence records written today. Version 2 named the
 * adapter and SDK versions a run exercised and kept every probe, failed ones
 * included; version 3 adds where the run reached the provider (`endpoint`) and
 * the parameters each probe used.
 */
export const EVIDENCE_FORMAT = "sandport-evidence-v3";

/**
 * The previous format, still read: such a record does not say where it was
 * gathered (it may come from an emulator), so its `endpoint` is absent and it
 * promotes nothing; see `resolveCapabilities`.
 */
export const EVIDENCE_FORMAT_V2 = "sandport-evidence-v2";

/**
 * Where a run reached the provider: its `default` service (the adapter's own
 * endpoint, as a user without an endpoint option gets it), or a `custom` URL
 * (an emulator, a self-hosted or regional deployment), given through an
 * endpoint option. The URL is kept without user name, password, query or fragment.
 */
export type EvidenceEndpoint = { readonly kind: "default" } | { readonly kind: "custom"; readonly url: string };

/** A probe's parameter values, by name (e.g. `{ idleMs: 30000 }` for the warm-lease probe). */
export type ProbeParameters = Readonly<Record<string, string | number | boolean>>;

/** A capability a live probe can establish: a declared capability or a mode. */
export type ProbedCapability = DeclaredCapability | ModeName;

/** What one live run observed: declared capabilities seen to work, and modes seen in action. */
export type Observations = Partial<Record<DeclaredCapability, true>> & {
  readonly [K in ModeName]?: Exclude<CapabilityModes[K], "unsupported" | "not-exposed" | "unknown">;
};

/** One capability probe of a live run, kept whether it passed or not. */
export type ProbeRecord =
  | {
      /** The capability the probe set out to establish. */
      readonly capability: ProbedCapability;
      /** The probe established the capability. */
      readonly outcome: "passed";
      /** What it established: `true`, or the mode it saw. Equal to `observed[capability]`. */
      readonly value: true | string;
      /** Wall-clock milliseconds the probe took. */
      readonly durationMs: number;
      /** What the probe was run with (e.g. how long the warm-lease probe left the sandbox idle). Absent: none. */
      readonly parameters?: ProbeParameters;
    }
  | {
      readonly capability: ProbedCapability;
      /** The probe threw, or ran and could not establish the capability. Nothing is observed. */
      readonly outcome: "failed";
      /** Why, in one line (an error's code and message, or what was not seen). Never a credential. */
      readonly reason: string;
      readonly durationMs: number;
      readonly parameters?: ProbeParameters;
    };

/** The shared conformance suite's outcome in a live run. */
export interface ConformanceSummary {
  /** Checks that passed. */
  readonly passed: number;
  /** Checks (and hooks) that failed. */
  readonly failed: number;
  /** Checks skipped, for a missing capability or a reason the caller gave. */
  readonly skipped: number;
  /** Titles of what failed, for a reader; empty when `failed` is 0. */
  readonly failures: readonly string[];
}

/** The adapter package a run exercised. */
export interface AdapterVersion {
  /** npm name of the adapter package, e.g. `"@sandport/e2b"`. */
  readonly package: string;
  /** Its version, from its package.json. Evidence applies to this version only. */
  readonly version: string;
}

/**
 * A record written by a canary run (`sandport canary`). It can only turn
 * `unknown` cells into observed values, for the same provider and adapter
 * version, and only when it was gathered at the provider's default endpoint or
 * at one the caller says is the real service; see `resolveCapabilities`.
 */
export interface EvidenceRecord {
  /** {@link EVIDENCE_FORMAT}, or {@link EVIDENCE_FORMAT_V2} for a record written before endpoints were recorded. */
  readonly format: typeof EVIDENCE_FORMAT | typeof EVIDENCE_FORMAT_V2;
  /** Provider the run exercised; must equal the runtime's `provider`. */
  readonly provider: string;
  /** Where the run reached the provider. Absent only in a {@link EVIDENCE_FORMAT_V2} record, which did not say. */
  readonly endpoint?: EvidenceEndpoint;
  /** The adapter package and version the run exercised. */
  readonly adapter: AdapterVersion;
  /** Installed version of each vendor SDK the adapter loads, by npm name (`{}` when it needs none). */
  readonly sdks: Readonly<Record<string, string>>;
  /** When the run finished, ISO-8601 UTC. */
  readonly recordedAt: string;
  /** Identifier of the run (a CI run id or URL), for tracing the claim back. */
  readonly runId: string;
  /** The conformance suite's outcome. */
  readonly conformance: ConformanceSummary;
  /** Every probe that ran, passed or failed, in the order they ran. */
  readonly probes: readonly ProbeRecord[];
  /** What the passing probes established; exactly one entry per passed probe. */
  readonly observed: Observations;
}
