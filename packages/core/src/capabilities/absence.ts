/**
 * Why a capability is not available. Never a bare `false`:
 *
 * - `unsupported`: the provider itself cannot do it.
 * - `not-exposed`: the provider can, but this port or adapter does not reach it.
 * - `unknown`: nobody has established it yet. The only value that live evidence may promote.
 */
export type Absence = "unsupported" | "not-exposed" | "unknown";

/** A yes/no capability: `true`, or the reason it is absent. */
export type Availability = true | Absence;

/** All absence values, for validation. */
export const ABSENCES: readonly Absence[] = ["unsupported", "not-exposed", "unknown"];

/** True only for `unknown`: the one value a live canary run may replace with an observation. */
export function isPendingEvidence(value: unknown): value is "unknown" {
  return value === "unknown";
}

/** True when `value` is one of the three absence values. */
export function isAbsence(value: unknown): value is Absence {
  return value === "unsupported" || value === "not-exposed" || value === "unknown";
}
