import type { Availability } from "./absence.js";
import type { CapabilityName, DeclaredCapability, StructuralCapability } from "./capability-names.js";
import type { CapabilityModes } from "./modes.js";

/** Where a resolved answer came from. */
export type CapabilitySource = "structural" | "declared" | "observed";

/**
 * One answer per capability, for a caller to branch on before calling.
 * `true` (or a mode value) means available; anything else is an `Absence`.
 */
export type ResolvedCapabilities = {
  /** The runtime's provider name. */
  readonly provider: string;
  /** Where each answer came from. */
  readonly sources: Readonly<Record<CapabilityName, CapabilitySource>>;
  /**
   * For each `observed` answer, where the records that established it were
   * gathered: `"default"` (the provider's own endpoint) or a custom endpoint's
   * URL that the caller named in `liveEndpoints`. Other answers have no entry.
   */
  readonly observedAt: Readonly<Partial<Record<CapabilityName, readonly string[]>>>;
} & { readonly [K in StructuralCapability | DeclaredCapability]: Availability } & CapabilityModes;
