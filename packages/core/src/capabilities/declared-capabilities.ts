import type { Absence, Availability } from "./absence.js";
import type { DeclaredCapability, StructuralCapability } from "./capability-names.js";
import type { CapabilityModes } from "./modes.js";

/**
 * What an adapter says about itself, beyond the methods it has.
 *
 * Declare only what the adapter has proven; say `unknown` otherwise, and let a
 * live canary supply evidence. The runtime's constructor should call
 * `assertCapabilitiesConsistent` so a declaration that contradicts the methods
 * present fails at once.
 */
export type DeclaredCapabilities = {
  readonly [K in DeclaredCapability]: Availability;
} & {
  /** Output, filesystem, lifetime, isolation, network policy and what survives a stop (`stopKeeps`) modes. */
  readonly modes: CapabilityModes;
  /**
   * Why a structural capability's methods are missing. Default: `not-exposed`.
   * Declaring an absence for a capability whose methods are present is a contradiction.
   */
  readonly absent?: Readonly<Partial<Record<StructuralCapability, Absence>>>;
};
