/**
 * Wire-compatible provider emulators: local servers that speak a provider's
 * protocol well enough for its real SDK to run against them, execute for real
 * on a backend runtime, count requests and inject faults.
 *
 * @module
 */

export type {
  E2BConnectionOptions,
  E2BEmulator,
  E2BEmulatorOptions,
} from "./e2b/emulator.js";
export { startE2BEmulator } from "./e2b/emulator.js";
export type { EmulatorBackend } from "./harness/backend.js";
export type {
  EmulatedSandboxSummary,
  EmulatorRequestRecord,
  FaultRule,
  FaultSpec,
  ProviderEmulator,
} from "./harness/types.js";
export type { MicrosandboxAgentOperation } from "./microsandbox/context.js";
export type {
  MicrosandboxBackendConfig,
  MicrosandboxEmulator,
  MicrosandboxEmulatorOptions,
} from "./microsandbox/emulator.js";
export { startMicrosandboxEmulator } from "./microsandbox/emulator.js";
