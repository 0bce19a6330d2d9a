/**
 * @sandport/testkit/emulators: what every provider emulator shares (the
 * backend a sandbox runs on, request records, fault rules). Each emulator is
 * its own entry: `@sandport/testkit/emulators/<provider>`, a local server
 * that speaks the provider's protocol well enough for its real SDK to run
 * against it, executing for real on a backend runtime.
 *
 * @module
 */

export type { BackendIsolation, EmulatorBackend } from "./harness/backend.js";
export { defaultBackendIsolation } from "./harness/backend.js";
export type {
  EmulatedSandboxSummary,
  EmulatorRequestRecord,
  FaultRule,
  FaultSpec,
  ProviderEmulator,
} from "./harness/types.js";
